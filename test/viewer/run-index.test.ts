import { appendFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect } from 'vitest';
import { episodeLine } from '../../src/harness/episode-record.js';
import { episodeNeighbours, parseEpisodeQuery, queryEpisodes } from '../../src/viewer/episode-query.js';
import { RunIndex } from '../../src/viewer/run-index.js';
import { sampleRecord } from '../harness/sample-records.js';
import { it } from '../support/fixtures.js';

/** A run directory holding `lines` as its episodes.jsonl (no summary: a run still writing). */
function runDir(dir: string, lines: string): string {
  writeFileSync(join(dir, 'episodes.jsonl'), lines);
  return dir;
}

const solved = (taskId: string, group = 'search') => episodeLine(sampleRecord(taskId, { group }));
const failed = (taskId: string, group = 'search') =>
  episodeLine(sampleRecord(taskId, { group, maxReward: 0.25, reward: 0.25, success: false }));

describe('RunIndex', () => {
  it('indexes valid lines, and skips and counts malformed ones with their reasons', ({ tempDir }) => {
    const lines = [
      solved('a'),
      '{ not json\n',
      `${JSON.stringify({ schemaVersion: 99, ...sampleRecord('b') })}\n`,
      `${JSON.stringify({ taskId: 'c' })}\n`,
      '\n',
      failed('d'),
      '{"schemaVersion":1,"taskId":"torn"',
    ].join('');
    const run = new RunIndex(0, runDir(tempDir('run'), lines));
    expect(run.episodes.map((entry) => entry.row.taskId)).toEqual(['a', 'd']);
    const info = run.info();
    expect(info.episodes).toBe(2);
    expect(info.skipped).toBe(4);
    expect(info.skippedLines.map((line) => line.line)).toEqual([2, 3, 4, 7]);
    expect(info.skippedLines[0]!.reason).toBe('not valid JSON');
    expect(info.skippedLines[1]!.reason).toMatch(/schemaVersion 99, newer than this intercode reads/);
    expect(info.skippedLines[2]!.reason).toMatch(/not a valid episode record/);
    expect(info.skippedLines[3]!.reason).toMatch(/last line is incomplete/);
    expect(info.overall).toMatchObject({ n: 2, solved: 1, successRate: 0.5 });
    expect(info.complete).toBe(false);
  });

  it('reads on as the file grows: new episodes, a torn line completed', ({ tempDir }) => {
    const dir = runDir(tempDir('run'), solved('a'));
    const run = new RunIndex(0, dir);
    const version = run.version;
    expect(run.refresh()).toBe(false);
    const line = failed('b');
    appendFileSync(join(dir, 'episodes.jsonl'), line.slice(0, 20));
    expect(run.refresh()).toBe(true);
    expect(run.info().skipped).toBe(1);
    appendFileSync(join(dir, 'episodes.jsonl'), line.slice(20));
    expect(run.refresh()).toBe(true);
    expect(run.version).toBeGreaterThan(version);
    expect(run.episodes.map((entry) => entry.row.taskId)).toEqual(['a', 'b']);
    expect(run.info()).toMatchObject({ episodes: 2, skipped: 0 });
    expect(run.record(1)).toMatchObject({ taskId: 'b', maxReward: 0.25 });
    expect(run.record(1)).not.toHaveProperty('schemaVersion');
    expect(run.record(2)).toBeUndefined();
  });

  it('gives the success-by-turn curve and the reward bins', ({ tempDir }) => {
    const twoTurns = sampleRecord('late', {
      turnsTaken: 2,
      turns: [
        { action: 'ls', observation: '', reward: 0, admissible: true, durationMs: 1 },
        { action: 'ls | wc -l', observation: '5\n', reward: 1, admissible: true, durationMs: 1 },
      ],
    });
    const errored = sampleRecord('broken', { error: 'sandbox did not start', success: false, maxReward: 0 });
    const lines = [solved('a'), failed('b'), episodeLine(twoTurns), episodeLine(errored)].join('');
    const info = new RunIndex(0, runDir(tempDir('run'), lines)).info();
    expect(info.successByTurn.slice(0, 2)).toEqual([
      { turn: 1, solvedPercent: 100 / 3 },
      { turn: 2, solvedPercent: 200 / 3 },
    ]);
    expect(info.rewardBins).toEqual([0, 0, 1, 0, 0, 0, 0, 0, 0, 2]);
    expect(info.overall.episodeErrors).toBe(1);
  });
});

describe('episode queries', () => {
  const lines = [
    solved('t1', 'fs1'),
    failed('t2', 'fs1'),
    solved('t3', 'fs2'),
    episodeLine(sampleRecord('t4', { group: 'fs2', query: 'Find the <script> tag', turnsTaken: 3 })),
    episodeLine(
      sampleRecord('t5', {
        group: 'fs2',
        turns: [
          {
            action: 'echo "quoted\\path"',
            observation: 'line\nnext',
            reward: 1,
            admissible: true,
            durationMs: 1,
          },
        ],
      }),
    ),
  ].join('');

  it('filters by status and group, searches texts, sorts and pages', ({ tempDir }) => {
    const run = new RunIndex(0, runDir(tempDir('run'), lines));
    const ids = (params: string) =>
      queryEpisodes(run, parseEpisodeQuery(new URLSearchParams(params))).rows.map((row) => row.taskId);
    expect(ids('status=failed')).toEqual(['t2']);
    expect(ids('group=fs2')).toEqual(['t3', 't4', 't5']);
    expect(ids('q=%3CSCRIPT%3E')).toEqual(['t4']);
    // Texts JSON escapes (a quote, a backslash, a new line) are found as the agent wrote them.
    expect(ids('q=quoted%5Cpath')).toEqual(['t5']);
    expect(ids('q=line%0Anext')).toEqual(['t5']);
    expect(ids('q=nowhere')).toEqual([]);
    expect(ids('sort=turns&desc=1').slice(0, 1)).toEqual(['t4']);
    expect(ids('offset=3&limit=1')).toEqual(['t4']);
    const page = queryEpisodes(run, parseEpisodeQuery(new URLSearchParams('group=fs1')));
    expect(page).toMatchObject({ total: 2, offset: 0, groups: ['fs1', 'fs2'] });
  });

  it('lists the episodes two runs disagree on, and an episode’s neighbours in a list', ({ tempDir }) => {
    const mine = new RunIndex(0, runDir(tempDir('mine'), lines));
    const theirs = new RunIndex(
      1,
      runDir(tempDir('theirs'), [failed('t1'), solved('t2'), solved('t3')].join('')),
    );
    const disagree = queryEpisodes(mine, parseEpisodeQuery(new URLSearchParams('versus=1')), theirs);
    expect(disagree.rows.map((row) => row.taskId)).toEqual(['t1', 't2']);
    expect(episodeNeighbours(mine, { group: 'fs2' }, 3)).toEqual({
      position: 1,
      total: 3,
      previous: 2,
      next: 4,
    });
    expect(episodeNeighbours(mine, { status: 'failed' }, 0)).toMatchObject({ position: null, next: null });
  });

  it('keeps a search’s answer and extends it with the episodes read since', ({ tempDir }) => {
    const dir = runDir(tempDir('run'), lines);
    const run = new RunIndex(0, dir);
    expect([...run.matching('<SCRIPT>')]).toEqual([3]);
    appendFileSync(
      join(dir, 'episodes.jsonl'),
      episodeLine(sampleRecord('t6', { query: 'another <script>' })),
    );
    expect(run.refresh()).toBe(true);
    expect([...run.matching('<script>')]).toEqual([3, 5]);
    const ids = queryEpisodes(run, parseEpisodeQuery(new URLSearchParams('q=%3Cscript%3E'))).rows;
    expect(ids.map((row) => row.taskId)).toEqual(['t4', 't6']);
  });

  it('refuses a bad parameter in one line naming it', () => {
    expect(() => parseEpisodeQuery(new URLSearchParams('status=great'))).toThrow(
      /parameter status must be one of/,
    );
    expect(() => parseEpisodeQuery(new URLSearchParams('limit=0'))).toThrow(
      /parameter limit must be an integer ≥ 1/,
    );
    expect(() => parseEpisodeQuery(new URLSearchParams('sort=colour'))).toThrow(
      /parameter sort must be one of/,
    );
  });
});
