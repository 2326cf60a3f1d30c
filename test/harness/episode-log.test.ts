import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { DatasetError } from '../../src/core/errors.js';
import { EpisodeLog } from '../../src/harness/episode-log.js';
import { episodeLine, parseEpisodeRecords } from '../../src/harness/episode-record.js';
import { cleanup, tempDir } from '../datasets/mirror-fixture.js';
import { oldLine, sampleRecord } from './sample-records.js';

const made: string[] = [];
afterAll(() => cleanup(made));

/** A run directory whose episodes.jsonl holds `text`. */
function runDir(text: string): { dir: string; path: string } {
  const dir = join(tempDir('episode-log', made), 'run');
  mkdirSync(dir);
  const path = join(dir, 'episodes.jsonl');
  writeFileSync(path, text);
  return { dir, path };
}

describe('EpisodeLog', () => {
  it('appends one versioned line per episode and resumes from them', () => {
    const dir = join(tempDir('episode-log', made), 'fresh');
    const { log, previous } = EpisodeLog.open(dir, undefined);
    expect(previous).toEqual([]);
    const a = sampleRecord('a');
    const b = sampleRecord('b', { index: 1, maxReward: 0.25 });
    log.append(a);
    log.append(b);
    log.close();
    const text = readFileSync(join(dir, 'episodes.jsonl'), 'utf8');
    expect(text).toBe(episodeLine(a) + episodeLine(b));
    expect(text.split('\n').map((line) => line.slice(0, 17))).toEqual([
      '{"schemaVersion":',
      '{"schemaVersion":',
      '',
    ]);

    expect(() => EpisodeLog.open(dir, undefined)).toThrow(/already holds episodes: pass --resume/);
    const resumed = EpisodeLog.open(dir, parseEpisodeRecords);
    resumed.log.close();
    expect(resumed.previous).toEqual([a, b]);
    expect(readFileSync(join(dir, 'episodes.jsonl'), 'utf8')).toBe(text);
  });

  it('writes batches and flushes them in groups: the calls made before a flush starts share it', async () => {
    const dir = join(tempDir('episode-log', made), 'batches');
    const { log } = EpisodeLog.open(dir, undefined);
    const records = ['a', 'b', 'c'].map((id, index) => sampleRecord(id, { index }));
    log.write(records.slice(0, 2));
    const first = log.durable();
    log.write(records.slice(2));
    // Not started yet: the write after the first call is covered by the same flush.
    expect(log.durable()).toBe(first);
    await first;
    const next = log.durable();
    expect(next).not.toBe(first);
    await next;
    log.write([]);
    log.close();
    expect(readFileSync(join(dir, 'episodes.jsonl'), 'utf8')).toBe(records.map(episodeLine).join(''));
  });

  it('resumes an old run directory whose lines have no schemaVersion, leaving them as they are', () => {
    const a = sampleRecord('a');
    const b = sampleRecord('b', { index: 1 });
    const { dir, path } = runDir(oldLine(a) + oldLine(b));
    const { log, previous } = EpisodeLog.open(dir, parseEpisodeRecords);
    expect(previous).toEqual([a, b]);
    const c = sampleRecord('c', { index: 2 });
    log.append(c);
    log.close();
    expect(readFileSync(path, 'utf8')).toBe(oldLine(a) + oldLine(b) + episodeLine(c));
  });

  it('drops the torn last line of a killed run on resume', () => {
    const a = sampleRecord('a');
    const torn = episodeLine(sampleRecord('b', { index: 1 })).slice(0, 60);
    const { dir, path } = runDir(episodeLine(a) + torn);
    const { log, previous } = EpisodeLog.open(dir, parseEpisodeRecords);
    log.close();
    expect(previous).toEqual([a]);
    expect(readFileSync(path, 'utf8')).toBe(episodeLine(a));
  });

  it('drops failed episodes on resume and rewrites the log with every line versioned, fields kept', () => {
    const a = sampleRecord('a');
    const failed = sampleRecord('b', {
      index: 1,
      turns: [],
      turnsTaken: 0,
      maxReward: 0,
      error: 'sandbox died',
    });
    const extra = `${JSON.stringify({ ...sampleRecord('c', { index: 2 }), note: 'kept' })}\n`;
    const { dir, path } = runDir(oldLine(a) + episodeLine(failed) + extra);
    const { log, previous } = EpisodeLog.open(dir, parseEpisodeRecords);
    log.close();
    expect(previous.map((record) => record.taskId)).toEqual(['a', 'c']);
    expect(readFileSync(path, 'utf8')).toBe(
      `${episodeLine(a)}${JSON.stringify({ schemaVersion: 1, ...sampleRecord('c', { index: 2 }), note: 'kept' })}\n`,
    );
  });

  it('refuses a malformed or newer line on resume in one line naming the file and line, touching nothing', () => {
    const good = episodeLine(sampleRecord('a'));
    const cases: [string, RegExp][] = [
      [
        `${good}{"taskId": "b"}\n`,
        /episodes\.jsonl: line 2 is not a valid episode record: index: missing \(and \d+ more\)$/,
      ],
      [`${good}{oops\n${good}`, /episodes\.jsonl: line 2 is not valid JSON$/],
      [
        `${good}${JSON.stringify({ ...sampleRecord('b'), schemaVersion: 3 })}\n`,
        /episodes\.jsonl: line 2 has schemaVersion 3, newer than this intercode reads \(1\)/,
      ],
    ];
    for (const [text, why] of cases) {
      const { dir, path } = runDir(text);
      expect(() => EpisodeLog.open(dir, parseEpisodeRecords)).toThrow(
        expect.objectContaining({ constructor: DatasetError, message: expect.stringMatching(why) }),
      );
      expect(() => EpisodeLog.open(dir, parseEpisodeRecords)).toThrow(`${path}: line 2 `);
      expect(readFileSync(path, 'utf8')).toBe(text);
    }
  });
});
