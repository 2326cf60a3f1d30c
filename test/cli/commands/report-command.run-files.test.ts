import { mkdirSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EpisodeLog } from '../../../src/harness/episode-log.js';
import type { EpisodeRecord } from '../../../src/harness/episode-record.js';
import { cleanup, tempDir } from '../../datasets/mirror-fixture.js';
import { oldLine, sampleRecord } from '../../harness/sample-records.js';
import { type CliOptions, expectOneLineError, intercode } from '../cli-fixture.js';

// `intercode report` end to end: the compiled CLI on run directories of both run-file versions.
const made: string[] = [];
const base: CliOptions = { cache: tempDir('report-cache', made) };
let oldRun = '';
let newRun = '';

const inadmissible = {
  action: 'cat /nope',
  observation: 'cat: /nope: No such file or directory\n',
  reward: 0,
  admissible: false,
  durationMs: 3,
};
const records: EpisodeRecord[] = [
  sampleRecord('a'),
  sampleRecord('b', { index: 1, group: 'text' }),
  sampleRecord('c', {
    index: 2,
    group: 'text',
    maxReward: 0.5,
    turns: [inadmissible, { ...sampleRecord('c').turns[0]!, reward: 0.5 }],
    turnsTaken: 2,
  }),
];

/** A run directory whose episodes.jsonl holds `text`. */
function runDir(name: string, text: string): string {
  const dir = join(tempDir('report', made), name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'episodes.jsonl'), text);
  return dir;
}

beforeAll(() => {
  // A run of an earlier version: lines without schemaVersion.
  oldRun = runDir('old', records.map(oldLine).join(''));
  // A run of this version, written by the run log itself.
  newRun = join(tempDir('report', made), 'new');
  const { log } = EpisodeLog.open(newRun, undefined);
  log.append(sampleRecord('d', { index: 3, group: 'files', maxReward: 0 }));
  log.append(sampleRecord('e', { index: 4, group: 'files' }));
  log.close();
});

afterAll(() => cleanup(made));

describe('intercode report', () => {
  it('prints the metrics of an old run directory (no schemaVersion), groups when there are several', () => {
    const result = intercode(['report', oldRun], base);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(result.stdout).toBe(
      [
        oldRun,
        // No summary.json: the setting is what the episodes tell.
        'demo/bash',
        'group   n  solved  success  first turn  mean reward  turns  error  failed',
        '------  -  ------  -------  ----------  -----------  -----  -----  ------',
        'all     3       2    66.7%       66.7%        0.833   1.33  16.7%       0',
        'search  1       1   100.0%      100.0%        1.000   1.00   0.0%       0',
        'text    2       1    50.0%       50.0%        0.750   1.50  25.0%       0',
        '',
      ].join('\n'),
    );
  });

  it('prints a new run directory and a combined block listing every group', () => {
    const result = intercode(['report', newRun, oldRun], base);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    const blocks = result.stdout.split('\n\n');
    // The runs side by side, each run, then both together.
    expect(blocks).toHaveLength(4);
    expect(blocks[0]!.split('\n')[0]).toBe('runs');
    expect(blocks[0]!.split('\n')[1]).toMatch(
      /^run\s+model\s+strategy\s+n\s+success\s+paper\s+diff\s+turns\s+error\s+failed\s+cost$/,
    );
    // One group: only the `all` row.
    expect(blocks[1]!.split('\n').slice(0, 2)).toEqual([newRun, 'demo/bash']);
    expect(blocks[1]!.split('\n').slice(4)).toEqual([
      'all    2       1    50.0%       50.0%        0.500   1.00   0.0%       0',
    ]);
    expect(blocks[3]!.split('\n')).toEqual([
      'combined (2 runs)',
      'demo/bash',
      'group   n  solved  success  first turn  mean reward  turns  error  failed',
      '------  -  ------  -------  ----------  -----------  -----  -----  ------',
      'all     5       3    60.0%       60.0%        0.700   1.20  10.0%       0',
      'files   2       1    50.0%       50.0%        0.500   1.00   0.0%       0',
      'search  1       1   100.0%      100.0%        1.000   1.00   0.0%       0',
      'text    2       1    50.0%       50.0%        0.750   1.50  25.0%       0',
      '',
    ]);
  });

  it('prints Markdown tables with --format md', () => {
    const result = intercode(['report', oldRun, newRun, '--format', 'md'], base);
    expect(result.status).toBe(0);
    const blocks = result.stdout.split('\n\n');
    expect(blocks.slice(0, 2)).toEqual(['## runs', expect.stringMatching(/^\| run \| model \|/)]);
    expect(blocks.slice(2, 5)).toEqual([
      `## ${oldRun}`,
      'demo/bash',
      expect.stringMatching(/^\| group \| n \|/),
    ]);
    expect(blocks[4]!.split('\n')).toEqual([
      '| group | n | solved | success | first turn | mean reward | turns | error | failed |',
      '|:--|--:|--:|--:|--:|--:|--:|--:|--:|',
      '| all | 3 | 2 | 66.7% | 66.7% | 0.833 | 1.33 | 16.7% | 0 |',
      '| search | 1 | 1 | 100.0% | 100.0% | 1.000 | 1.00 | 0.0% | 0 |',
      '| text | 2 | 1 | 50.0% | 50.0% | 0.750 | 1.50 | 25.0% | 0 |',
    ]);
    expect(blocks).toContain('## combined (2 runs)');
  });

  it('prints the same JSON with --json and --format json', () => {
    const json = intercode(['report', oldRun, newRun, '--json'], base);
    expect(json.status).toBe(0);
    expect(intercode(['report', oldRun, newRun, '--format', 'json'], base).stdout).toBe(json.stdout);
    const report = JSON.parse(json.stdout) as {
      runs: { directory: string; overall: Record<string, number>; byGroup: Record<string, unknown> }[];
      combined: { overall: Record<string, number> };
    };
    expect(report.runs.map((run) => run.directory)).toEqual([oldRun, newRun]);
    expect(report.runs[0]!.overall).toEqual({
      n: 3,
      solved: 2,
      successRate: 2 / 3,
      meanReward: 2.5 / 3,
      meanTurns: 4 / 3,
      errorRate: 0.5 / 3,
      firstTurnSolved: 2,
      firstTurnSuccessRate: 2 / 3,
      usage: { input: 0, output: 0, cachedInput: 0, cacheWrite: 0, reasoning: 0 },
      costUsd: 0,
      episodeErrors: 0,
    });
    expect(Object.keys(report.runs[0]!.byGroup)).toEqual(['search', 'text']);
    expect(report.combined.overall).toMatchObject({ n: 5, solved: 3 });
    expect(JSON.parse(intercode(['report', newRun, '--json'], base).stdout)).not.toHaveProperty('combined');
  });

  it('fails in one line naming the file and line for a malformed line or a newer version', () => {
    const good = oldLine(records[0]!);
    const cases: [string, RegExp][] = [
      [`${good}{oops\n`, /episodes\.jsonl: line 2 is not valid JSON/],
      [
        `${good}\n${JSON.stringify({ ...records[1]!, turnsTaken: 'two' })}\n`,
        /episodes\.jsonl: line 3 is not a valid episode record: turnsTaken: Invalid input: expected number, received string/,
      ],
      [
        `${good}${JSON.stringify({ schemaVersion: 2, ...records[1]! })}\n`,
        /episodes\.jsonl: line 2 has schemaVersion 2, newer than this intercode reads \(1\): upgrade intercode to read it/,
      ],
      // A torn last line (a run killed mid-write) is reported, not skipped: report reads whole runs.
      [`${good}${good.slice(0, 50)}`, /episodes\.jsonl: line 2 is not valid JSON/],
    ];
    for (const [text, why] of cases) {
      const dir = runDir('bad', text);
      const result = intercode(['report', oldRun, dir], base);
      expectOneLineError(result, why);
      expect(result.stderr).toContain(join(dir, 'episodes.jsonl'));
      expect(result.stdout).toBe('');
    }
  });

  it('fails in one line for a folder that is not a run directory, or a bad --format', () => {
    const empty = tempDir('not-a-run', made);
    expectOneLineError(intercode(['report', empty], base), /is not a run directory \(no episodes\.jsonl\)/);
    expectOneLineError(intercode(['report', oldRun, '--format', 'xml'], base), /--format/);
    expectOneLineError(
      intercode(['report', oldRun, '--json', '--format', 'md'], base),
      /--json and --format md disagree/,
    );
  });
});
