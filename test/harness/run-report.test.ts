import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { settingLine } from '../../src/harness/report-format.js';
import { readRunDirectory } from '../../src/harness/run-files/read-run-directory.js';
import { combinedReport, runReport } from '../../src/harness/run-report.js';
import { cleanup, tempDir } from '../datasets/mirror-fixture.js';
import { GPT4_DESCRIPTION, gpt4Episodes, writeRun } from './report-fixtures.js';
import { sampleRecord } from './sample-records.js';

const made: string[] = [];
afterAll(() => cleanup(made));

describe('runReport', () => {
  it('reads the setting from summary.json and sets each figure beside the paper cell of that setting', () => {
    const dir = writeRun(join(tempDir('run-report', made), 'gpt4'), gpt4Episodes(), GPT4_DESCRIPTION);
    const report = runReport(readRunDirectory(dir));
    expect(report.setting).toMatchObject({
      paperModel: 'gpt-4',
      strategy: 'try-again',
      maxTurns: 10,
      engine: 'mysql',
    });
    // 3 of the 4 played episodes solved; the failed one is counted apart.
    expect(report.overall).toMatchObject({ n: 4, solved: 3, episodeErrors: 1, firstTurnSolved: 1 });
    const all = report.paper.find((c) => c.group === 'all' && c.metric === 'successRate');
    expect(all).toMatchObject({ measured: 75, paper: 73.7, source: { table: 'text' } });
    expect(all!.difference).toBeCloseTo(1.3, 10);
    const hard = report.paper.find((c) => c.group === 'hard' && c.metric === 'successRate');
    expect(hard).toMatchObject({
      measured: 50,
      paper: 66.7,
      source: { table: 'Table 2', column: 'Try Again (n = 10) / Hard' },
    });
    // Groups the run did not play have no comparison.
    expect(report.paper.map((c) => c.group).sort()).toEqual(['all', 'easy', 'hard']);
  });

  it('compares nothing when the run has no summary or the paper did not run its model', () => {
    const dir = writeRun(join(tempDir('run-report', made), 'bare'), gpt4Episodes(), undefined);
    const bare = runReport(readRunDirectory(dir));
    expect(bare.setting).toEqual({ dataset: 'spider/dev', env: 'sql', handicap: false });
    expect(bare.paper).toEqual([]);
    const other = writeRun(join(tempDir('run-report', made), 'other'), gpt4Episodes(), {
      ...GPT4_DESCRIPTION,
      model: 'anthropic:claude-sonnet-4-5',
    });
    expect(runReport(readRunDirectory(other)).paper).toEqual([]);
  });

  it('fails in one line for a folder without episodes.jsonl', () => {
    const dir = tempDir('run-report', made);
    expect(() => readRunDirectory(dir)).toThrow(`${dir} is not a run directory (no episodes.jsonl)`);
  });
});

describe('combinedReport', () => {
  const bashRun = (fs: string, solved: number, of: number) => {
    const episodes = Array.from({ length: of }, (_, i) =>
      sampleRecord(`${fs}-${i}`, {
        index: i,
        dataset: `nl2bash/${fs}`,
        group: fs,
        maxReward: i < solved ? 1 : 0.5,
      }),
    );
    return writeRun(join(tempDir('run-report', made), fs), episodes, {
      dataset: `nl2bash/${fs}`,
      env: 'bash',
      agent: 'llm',
      // Each file system replays its own upstream file, as the paper's runs were recorded.
      model: `replay:/mirror/data/results/bash/gpt-4/ic_bash_multiturn_gpt-4_10_turns_${fs.replace('fs', 'fs_')}.json`,
      strategy: 'try-again',
      maxTurns: 10,
      compat: 'upstream',
    });
  };

  it("sets the four NL2Bash file systems together beside the paper's overall Bash figure", () => {
    const runs = [
      bashRun('fs1', 5, 10),
      bashRun('fs2', 4, 8),
      bashRun('fs3', 5, 10),
      bashRun('fs4', 3, 5),
    ].map(readRunDirectory);
    const one = runReport(runs[1]!);
    // One file system alone: its column of Table 3 for its overall row.
    expect(one.paper.find((c) => c.group === 'all' && c.metric === 'successRate')).toMatchObject({
      paper: 47.2,
      measured: 50,
    });
    const combined = combinedReport(runs);
    expect(combined.setting).toMatchObject({ dataset: 'nl2bash', paperModel: 'gpt-4' });
    expect(combined.setting).not.toHaveProperty('model');
    expect(settingLine(combined.setting)).toBe(
      'nl2bash · agent llm · paper model gpt-4 · strategy try-again · 10 turns · compat upstream',
    );
    expect(combined.overall).toMatchObject({ n: 33, solved: 17 });
    expect(combined.paper.find((c) => c.group === 'all' && c.metric === 'successRate')).toMatchObject({
      paper: 48.5,
    });
    expect(combined.paper.find((c) => c.group === 'fs4' && c.metric === 'successRate')).toMatchObject({
      paper: 59.2,
      measured: 60,
    });
    expect(
      combined.paper.find((c) => c.group === 'all' && c.metric === 'firstTurnSuccessRate'),
    ).toMatchObject({ paper: 34 });
  });

  it('compares nothing when the runs differ in their setting', () => {
    const gpt4 = readRunDirectory(bashRun('fs1', 5, 10));
    const other = writeRun(join(tempDir('run-report', made), 'davinci'), gpt4.episodes, {
      dataset: 'nl2bash/fs2',
      env: 'bash',
      agent: 'llm',
      model: 'openai:text-davinci-003',
      strategy: 'try-again',
      maxTurns: 10,
    });
    const combined = combinedReport([gpt4, readRunDirectory(other)]);
    expect(combined.paper).toEqual([]);
    expect(combined.overall.n).toBe(20);
  });
});
