/**
 * Session processes started with the engine, ahead of need (`spareProcesses`): the first hosts take
 * them instead of starting their own, a spare that died before it was taken is passed over, and the
 * engine's close ends those never taken.
 */
import { afterAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../../src/sql/dump/parse-mysql-dump.js';
import type { QueryOutcome } from '../../../../src/sql/engine/sql-engine.js';
import { MAX_SPARE_PROCESSES, SqliteEngine } from '../../../../src/sql/engine/sqlite/sqlite-engine.js';
import { childProcesses, settledChildren } from '../../../support/child-processes.js';
import { temporaryDir } from '../../../support/temp-dirs.js';

const DUMP = parseMysqlDump(`CREATE DATABASE \`one\`;
USE \`one\`;
CREATE TABLE \`a\` (\`x\` int);
INSERT INTO \`a\` VALUES (1),(2);
`);

const LIMITS = { timeoutMs: 5000, maxRows: 1000 };

function rows(outcome: QueryOutcome): unknown[][] {
  if (outcome.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(outcome)}`);
  return outcome.rows;
}

const cache = temporaryDir('sqlite-spares');

afterAll(() => cache.remove());

describe('SQLite session processes started ahead of need', () => {
  it('the first hosts take the spares (no process starts for them); the next one starts its own', async () => {
    const before = childProcesses();
    const engine = new SqliteEngine({ cacheDir: cache.dir, spareProcesses: 2 });
    try {
      expect(engine.spareProcesses).toBe(2);
      const spares = await settledChildren(2, before);
      expect(spares).toHaveLength(2);
      await engine.prepare(DUMP);
      const first = await engine.open('one', { share: {} });
      expect(engine.spareProcesses).toBe(1);
      const second = await engine.open('one', { share: {} });
      expect(engine.spareProcesses).toBe(0);
      // The sessions run in the spares: still the same two processes.
      expect((await settledChildren(2, before)).sort()).toEqual([...spares].sort());
      expect(rows(await first.query('SELECT count(*) FROM a', LIMITS))).toEqual([[2n]]);
      expect(rows(await second.query('SELECT count(*) FROM a', LIMITS))).toEqual([[2n]]);
      const third = await engine.open('one', { share: {} });
      const now = await settledChildren(3, before);
      expect(now).toHaveLength(3);
      expect(now.filter((pid) => !spares.includes(pid))).toHaveLength(1);
      expect(rows(await third.query('SELECT x FROM a ORDER BY x', LIMITS))).toEqual([[1n], [2n]]);
      await Promise.all([first.close(), second.close(), third.close()]);
      expect(await settledChildren(0, before)).toEqual([]);
    } finally {
      await engine.close();
    }
  });

  it('ends the spares never taken when it closes', async () => {
    const before = childProcesses();
    const engine = new SqliteEngine({ cacheDir: cache.dir, spareProcesses: 3 });
    expect(await settledChildren(3, before)).toHaveLength(3);
    await engine.close();
    expect(engine.spareProcesses).toBe(0);
    expect(await settledChildren(0, before)).toEqual([]);
  });

  it('passes over a spare that died before it was taken', async () => {
    const before = childProcesses();
    const engine = new SqliteEngine({ cacheDir: cache.dir, spareProcesses: 1 });
    try {
      await engine.prepare(DUMP);
      const [spare] = await settledChildren(1, before);
      expect(spare).toBeDefined();
      process.kill(spare!, 'SIGKILL');
      expect(await settledChildren(0, before)).toEqual([]);
      const session = await engine.open('one');
      const [started] = await settledChildren(1, before);
      expect(started).not.toBe(spare);
      expect(rows(await session.query('SELECT count(*) FROM a', LIMITS))).toEqual([[2n]]);
      await session.close();
    } finally {
      await engine.close();
    }
  });

  it('with refills, replaces each spare taken at once: the next host takes the replacement', async () => {
    const before = childProcesses();
    const engine = new SqliteEngine({ cacheDir: cache.dir, spareProcesses: 1, refillSpares: true });
    try {
      await engine.prepare(DUMP);
      const [spare] = await settledChildren(1, before);
      const first = await engine.open('one', { share: {} });
      expect(engine.spareProcesses).toBe(1);
      const afterFirst = await settledChildren(2, before);
      expect(afterFirst).toContain(spare);
      const second = await engine.open('one', { share: {} });
      // The second host runs in the replacement: one new process (the next replacement), no other.
      const afterSecond = await settledChildren(3, before);
      expect(afterSecond.filter((pid) => !afterFirst.includes(pid))).toHaveLength(1);
      expect(rows(await second.query('SELECT count(*) FROM a', LIMITS))).toEqual([[2n]]);
      await Promise.all([first.close(), second.close()]);
      expect(await settledChildren(1, before)).toHaveLength(1);
    } finally {
      await engine.close();
    }
    expect(await settledChildren(0, before)).toEqual([]);
  });

  it(`starts no spare by default, and at most ${MAX_SPARE_PROCESSES}`, async () => {
    const plain = new SqliteEngine({ cacheDir: cache.dir });
    expect(plain.spareProcesses).toBe(0);
    await plain.close();
    const before = childProcesses();
    const many = new SqliteEngine({ cacheDir: cache.dir, spareProcesses: MAX_SPARE_PROCESSES + 5 });
    expect(many.spareProcesses).toBe(MAX_SPARE_PROCESSES);
    await many.close();
    expect(await settledChildren(0, before)).toEqual([]);
  });
});
