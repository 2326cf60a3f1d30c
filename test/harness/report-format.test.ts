import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { formatReport, reportJson } from '../../src/harness/report-format.js';
import { readRunDirectory } from '../../src/harness/run-files/read-run-directory.js';
import { combinedReport, runReport } from '../../src/harness/run-report.js';
import { cleanup, tempDir } from '../datasets/mirror-fixture.js';
import {
  GPT4_DESCRIPTION,
  GPT4_SQL_FILE,
  gpt4Episodes,
  llmTurn,
  sqlEpisode,
  writeRun,
} from './report-fixtures.js';

const made: string[] = [];
afterAll(() => cleanup(made));

const gpt4 = () =>
  readRunDirectory(writeRun(join(tempDir('report-format', made), 'gpt4'), gpt4Episodes(), GPT4_DESCRIPTION));

describe('formatReport', () => {
  it("prints each figure with the paper's and the difference, by hardness, then tokens and cost, in Markdown", () => {
    const run = gpt4();
    expect(formatReport([runReport(run)], undefined, 'md').split('\n')).toEqual([
      `## ${run.directory}`,
      '',
      `spider/dev · agent llm · model replay:${GPT4_SQL_FILE} (paper: gpt-4) · strategy try-again · 10 turns · engine mysql`,
      '',
      '| group | n | solved | success | paper | diff | first turn | mean reward | turns | error | failed |',
      '|:--|--:|--:|--:|--:|--:|--:|--:|--:|--:|--:|',
      '| all | 4 | 3 | 75.0% | 73.7 | +1.3 | 25.0% | 0.750 | 1.50 | 12.5% | 1 |',
      '| easy | 2 | 2 | 100.0% | 87.5 | +12.5 | 50.0% | 1.000 | 1.50 | 25.0% | 0 |',
      '| hard | 2 | 1 | 50.0% | 66.7 | -16.7 | 0.0% | 0.500 | 1.50 | 0.0% | 1 |',
      '',
      '| group | input tokens | cached | output tokens | reasoning | cost |',
      '|:--|--:|--:|--:|--:|--:|',
      '| all | 600 | 360 | 120 | 30 | $0.0600 |',
      '| easy | 300 | 180 | 60 | 15 | $0.0300 |',
      '| hard | 300 | 180 | 60 | 15 | $0.0300 |',
      '',
      'paper: arXiv 2306.14898 v3, Table 2, the text; diff = run − paper',
      '',
    ]);
  });

  it('shows turns and Error % beside Table 4, marks recomputed cells and says when a cost is unknown', () => {
    const react = writeRun(
      join(tempDir('report-format', made), 'react'),
      [sqlEpisode('0', 'easy', [llmTurn('SELECT 1', 1, true, null)])],
      { ...GPT4_DESCRIPTION, model: 'openai:gpt-3.5-turbo', strategy: 'react' },
    );
    const text = formatReport([runReport(readRunDirectory(react))], undefined, 'table');
    expect(text).toMatch(
      /^group\s+n\s+solved\s+success\s+paper\s+diff\s+first turn\s+mean reward\s+turns\s+paper\s+diff\s+error\s+paper\s+diff\s+failed$/m,
    );
    expect(text).toMatch(
      /^all\s+1\s+1\s+100\.0%\s+58\.7\s+\+41\.3\s+100\.0%\s+1\.000\s+1\.00\s+5\.30\s+-4\.30\s+0\.0%\s+6\.94\s+-6\.9\s+0$/m,
    );
    // The only group has no figure of its own in Table 4.
    expect(text).toMatch(/^all\s+100\s+60\s+20\s+5\s+unknown$/m);
    const bison = writeRun(join(tempDir('report-format', made), 'bison'), gpt4Episodes(), {
      ...GPT4_DESCRIPTION,
      model: 'openai:text-bison-001',
    });
    const marked = formatReport([runReport(readRunDirectory(bison))], undefined, 'table');
    expect(marked).toMatch(/^all\s+4\s+3\s+75\.0%\s+12\.9\*\s+\+62\.1\s+25\.0%\s+11\.5\s+\+13\.5/m);
    expect(marked).toContain('* not in the paper text we hold, recomputed from the upstream result file');
  });

  it('writes a difference that rounds to nothing as +0.0', () => {
    const episodes = ['1', '2', '3'].map((id, i) =>
      sqlEpisode(id, 'hard', [llmTurn('SELECT 1', i < 2 ? 1 : 0, true, 0.01)]),
    );
    const dir = writeRun(join(tempDir('report-format', made), 'zero'), episodes, GPT4_DESCRIPTION);
    // 2/3 = 66.67 % against the paper's 66.7 (Table 2, gpt-4, Try Again, Hard).
    expect(formatReport([runReport(readRunDirectory(dir))], undefined, 'table')).toMatch(
      /^all\s+3\s+2\s+66\.7%\s+73\.7\s+-7\.0\s/m,
    );
    expect(formatReport([runReport(readRunDirectory(dir))], undefined, 'md')).toContain(
      '| all | 3 | 2 | 66.7% | 73.7 | -7.0 |',
    );
    const hard = writeRun(
      join(tempDir('report-format', made), 'hard'),
      [...episodes, sqlEpisode('4', 'easy', [])],
      GPT4_DESCRIPTION,
    );
    expect(formatReport([runReport(readRunDirectory(hard))], undefined, 'table')).toMatch(
      /^hard\s+3\s+2\s+66\.7%\s+66\.7\s+\+0\.0\s/m,
    );
  });
});

describe('reportJson', () => {
  it("gives every run's setting, metrics and paper comparisons with their sources, and the runs together", () => {
    const run = gpt4();
    const json = JSON.parse(reportJson([runReport(run), runReport(run)], combinedReport([run, run])));
    expect(json.paper).toEqual({
      title: 'InterCode: Standardizing and Benchmarking Interactive Coding with Execution Feedback',
      arxiv: '2306.14898',
      version: 'v3',
    });
    expect(json.runs).toHaveLength(2);
    expect(json.runs[0]).toMatchObject({
      directory: run.directory,
      setting: { paperModel: 'gpt-4', strategy: 'try-again' },
      overall: { n: 4, solved: 3, episodeErrors: 1, costUsd: expect.closeTo(0.06, 10) },
    });
    expect(json.runs[0].paper).toContainEqual({
      group: 'easy',
      metric: 'successRate',
      measured: 100,
      paper: 87.5,
      difference: 12.5,
      source: { table: 'Table 2', row: 'gpt-4', column: 'Try Again (n = 10) / Easy' },
    });
    expect(json.combined).toMatchObject({
      directories: [run.directory, run.directory],
      overall: { n: 8, solved: 6 },
    });
  });
});
