import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatasetError } from '../../src/core/errors.js';
import type { Task } from '../../src/core/task.js';
import {
  EPISODE_RECORD_VERSION,
  episodeLine,
  episodeRecordSchema,
  failedEpisodeRecord,
  parseEpisodeRecords,
  readEpisodeRecords,
} from '../../src/harness/episode-record.js';
import { cleanup, tempDir } from '../datasets/mirror-fixture.js';
import { oldLine, sampleRecord } from './sample-records.js';

const made: string[] = [];
afterAll(() => cleanup(made));

/** Matches a one-line `DatasetError` of code DATASET_INVALID whose message matches `message`. */
function invalid(message: RegExp | string) {
  return expect.objectContaining({
    constructor: DatasetError,
    code: 'DATASET_INVALID',
    message: typeof message === 'string' ? message : expect.stringMatching(message),
  });
}

describe('episodeLine', () => {
  it('writes schemaVersion first, then the record as it is, one line', () => {
    const record = sampleRecord('a');
    const line = episodeLine(record);
    expect(line.endsWith('\n')).toBe(true);
    expect(line.slice(0, -1)).not.toContain('\n');
    const parsed = JSON.parse(line) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['schemaVersion', ...Object.keys(record)]);
    expect(parsed).toEqual({ schemaVersion: EPISODE_RECORD_VERSION, ...record });
    expect(EPISODE_RECORD_VERSION).toBe(1);
  });
});

describe('parseEpisodeRecords', () => {
  it('reads lines without schemaVersion (version 1) and with it alike, returning records without it', () => {
    const a = sampleRecord('a');
    const b = sampleRecord('b', { index: 1, maxReward: 0.5, group: 'text' });
    const records = parseEpisodeRecords(`${oldLine(a)}\n${episodeLine(b)}`, 'runs/x/episodes.jsonl');
    expect(records).toEqual([a, b]);
    expect(records[1]).not.toHaveProperty('schemaVersion');
    // The record read is the line's fields in their order: a rewrite gives the same line back.
    expect(episodeLine(records[1]!)).toBe(episodeLine(b));
  });

  it("reads turns with the scorer's details, and older lines without them, alike (version 1)", () => {
    const base = sampleRecord('a');
    const details = {
      goldOutput: '5\n',
      agentChanges: [{ status: 'A', path: 'x' }],
      evalChanges: [],
      diffSame: { files: [], correct: 0, total: 0 },
    };
    const withDetails = sampleRecord('b', { turns: [{ ...base.turns[0]!, details }] });
    const [older, newer] = parseEpisodeRecords(`${oldLine(base)}${episodeLine(withDetails)}`, 'e.jsonl');
    expect(older).toEqual(base);
    expect(older!.turns[0]).not.toHaveProperty('details');
    expect(newer!.turns[0]!.details).toEqual(details);
    expect(episodeLine(newer!)).toBe(episodeLine(withDetails));
    expect(JSON.parse(episodeLine(withDetails)).schemaVersion).toBe(1);
    const bad = { ...withDetails, turns: [{ ...base.turns[0]!, details: ['not', 'an', 'object'] }] };
    expect(() => parseEpisodeRecords(episodeLine(bad as never), 'e.jsonl')).toThrow(
      invalid(/^e\.jsonl: line 1 is not a valid episode record: turns\.0\.details: /),
    );
  });

  it('keeps fields it does not know (a rewrite on resume loses nothing)', () => {
    const line = `${JSON.stringify({ schemaVersion: 1, ...sampleRecord('a'), note: { by: 'hand' } })}\n`;
    const [record] = parseEpisodeRecords(line, 'episodes.jsonl');
    expect(record).toMatchObject({ taskId: 'a', note: { by: 'hand' } });
    expect(episodeLine(record!)).toBe(line);
  });

  it('fails in one line naming the file and the line (blank lines counted)', () => {
    const good = episodeLine(sampleRecord('a'));
    const { turns: _turns, ...noTurns } = sampleRecord('b');
    const cases: [string, RegExp][] = [
      [`${good}\n{"taskId": "a", `, /^f\.jsonl: line 3 is not valid JSON$/],
      [
        `${good}${JSON.stringify({ schemaVersion: 2, ...sampleRecord('b') })}\n`,
        /^f\.jsonl: line 2 has schemaVersion 2, newer than this intercode reads \(1\): upgrade intercode to read it$/,
      ],
      [
        `${JSON.stringify({ schemaVersion: '1', ...sampleRecord('b') })}\n`,
        /^f\.jsonl: line 1 has an invalid schemaVersion "1" \(expected a positive integer\)$/,
      ],
      [
        `${JSON.stringify({ schemaVersion: 0, ...sampleRecord('b') })}\n`,
        /^f\.jsonl: line 1 has an invalid schemaVersion 0/,
      ],
      [
        `${good}${JSON.stringify(noTurns)}\n`,
        /^f\.jsonl: line 2 is not a valid episode record: turns: missing$/,
      ],
      [
        `${JSON.stringify(sampleRecord('b', { turnsTaken: 1.5, success: 'yes' as unknown as boolean }))}\n`,
        /^f\.jsonl: line 1 is not a valid episode record: success: Invalid input: expected boolean, received string \(and 1 more\)$/,
      ],
      [
        `${JSON.stringify({ ...sampleRecord('b'), turns: [{ action: 'ls', observation: null }] })}\n`,
        /^f\.jsonl: line 1 is not a valid episode record: turns\.0\.observation: Invalid input: expected string, received null \(and 3 more\)$/,
      ],
      [
        '[1, 2]\n',
        /^f\.jsonl: line 1 is not a valid episode record: the value: Invalid input: expected object, received array$/,
      ],
    ];
    for (const [text, why] of cases) {
      expect(() => parseEpisodeRecords(text, 'f.jsonl')).toThrow(invalid(why));
    }
  });
});

describe('readEpisodeRecords', () => {
  it('reads a file, or fails naming it when it cannot', () => {
    const dir = tempDir('episode-records', made);
    const path = join(dir, 'episodes.jsonl');
    writeFileSync(path, episodeLine(sampleRecord('a')) + oldLine(sampleRecord('b')));
    expect(readEpisodeRecords(path).map((record) => record.taskId)).toEqual(['a', 'b']);
    expect(() => readEpisodeRecords(join(dir, 'none.jsonl'))).toThrow(
      invalid(`${join(dir, 'none.jsonl')}: cannot read it (ENOENT)`),
    );
  });
});

describe('failedEpisodeRecord', () => {
  const task: Task = { id: 'fs1/3', index: 3, query: 'q?', gold: 'ls', group: 'fs1', meta: {} };

  it("builds the record of an episode that could not be played, in the run log's field order", () => {
    const record = failedEpisodeRecord(task, 'nl2bash/fs1', new Error('sandbox died'), 12.5);
    expect(Object.entries(record)).toEqual([
      ['taskId', 'fs1/3'],
      ['index', 3],
      ['dataset', 'nl2bash/fs1'],
      ['query', 'q?'],
      ['gold', 'ls'],
      ['turns', []],
      ['reward', 0],
      ['maxReward', 0],
      ['success', false],
      ['turnsTaken', 0],
      ['terminated', false],
      ['truncated', false],
      ['error', 'sandbox died'],
      ['group', 'fs1'],
      ['durationMs', 12.5],
    ]);
    expect(episodeRecordSchema.safeParse(record).success).toBe(true);
  });

  it('leaves out gold and group when the task has none, and takes any thrown value', () => {
    const bare: Task = { id: 'x', index: 0, query: 'q', meta: {} };
    const record = failedEpisodeRecord(bare, 'mine.json', 'no env', 1);
    expect(record).not.toHaveProperty('gold');
    expect(record).not.toHaveProperty('group');
    expect(record.error).toBe('no env');
    expect(failedEpisodeRecord(bare, 'mine.json', null, 1).error).toBe('null');
  });
});
