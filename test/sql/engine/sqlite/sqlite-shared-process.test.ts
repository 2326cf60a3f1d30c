/**
 * Sessions opened with the same `share` object (an environment's, one per database it touched) live
 * in one SQLite session process: one process for all of them, still isolated, and a statement of one
 * that has to be killed costs the others nothing they can see.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../../src/sql/dump/parse-mysql-dump.js';
import type { QueryOutcome, SqlSession } from '../../../../src/sql/engine/sql-engine.js';
import { SqliteEngine } from '../../../../src/sql/engine/sqlite/sqlite-engine.js';
import { childProcesses as children, settledChildren } from '../../../support/child-processes.js';
import { temporaryDir } from '../../../support/temp-dirs.js';

const DUMP = parseMysqlDump(`CREATE DATABASE \`one\`;
USE \`one\`;
CREATE TABLE \`a\` (\`x\` int);
INSERT INTO \`a\` VALUES (1),(2);
CREATE DATABASE \`two\`;
USE \`two\`;
CREATE TABLE \`b\` (\`y\` varchar(10));
INSERT INTO \`b\` VALUES ('p'),('q'),('r');
`);

const LIMITS = { timeoutMs: 5000, maxRows: 1000 };
const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c';

function rows(outcome: QueryOutcome): unknown[][] {
  if (outcome.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(outcome)}`);
  return outcome.rows;
}

async function settled(expected: number, before: number[]): Promise<number> {
  return (await settledChildren(expected, before)).length;
}

const cache = temporaryDir('sqlite-shared');
const engine = new SqliteEngine({ cacheDir: cache.dir });

beforeAll(async () => {
  await engine.prepare(DUMP);
});

afterAll(async () => {
  await engine.close();
  cache.remove();
});

describe('SQLite sessions sharing a process', () => {
  it('runs the sessions of one share in one process, and ends it with the last session', async () => {
    const before = children();
    const owner = {};
    const one = await engine.open('one', { share: owner });
    const two = await engine.open('two', { share: owner });
    const again = await engine.open('one', { share: owner });
    expect(await settled(1, before)).toBe(1);
    const alone = await engine.open('one');
    expect(await settled(2, before)).toBe(2);
    await alone.close();
    await one.close();
    await two.close();
    expect(await settled(1, before)).toBe(1);
    expect(rows(await again.query('SELECT count(*) FROM a', LIMITS))).toEqual([[2n]]);
    await again.close();
    expect(await settled(0, before)).toBe(0);
  });

  it('keeps the sessions isolated: changes, resets and transactions of one never reach another', async () => {
    const owner = {};
    const first = await engine.open('one', { share: owner });
    const second = await engine.open('one', { share: owner });
    await first.query('BEGIN', LIMITS);
    await first.query('INSERT INTO a VALUES (3)', LIMITS);
    await first.query('CREATE TABLE mine (z int)', LIMITS);
    expect(rows(await second.query('SELECT count(*) FROM a', LIMITS))).toEqual([[2n]]);
    expect(await second.query('SELECT * FROM mine', LIMITS)).toMatchObject({ kind: 'error' });
    await second.query('DELETE FROM a', LIMITS);
    expect(rows(await first.query('SELECT count(*) FROM a', LIMITS))).toEqual([[3n]]);
    await second.reset();
    expect(rows(await second.query('SELECT count(*) FROM a', LIMITS))).toEqual([[2n]]);
    expect(rows(await first.query('SELECT count(*) FROM a', LIMITS))).toEqual([[3n]]);
    await first.reset();
    expect(rows(await first.query('SELECT count(*) FROM a', LIMITS))).toEqual([[2n]]);
    expect(await first.query('SELECT * FROM mine', LIMITS)).toMatchObject({ kind: 'error' });
    await Promise.all([first.close(), second.close()]);
  });

  it('after one session’s runaway query, every session has its state back, and waiting requests are answered', async () => {
    const owner = {};
    const runaway = await engine.open('one', { share: owner });
    const other = await engine.open('two', { share: owner });
    await runaway.query('INSERT INTO a VALUES (10)', LIMITS);
    await other.query('BEGIN', LIMITS);
    await other.query("INSERT INTO b VALUES ('s')", LIMITS);
    await other.query('CREATE TEMP TABLE note (n int)', LIMITS);
    await other.query('INSERT INTO note VALUES (7)', LIMITS);
    const before = children();
    const [stopped, waiting] = await Promise.all([
      runaway.query(RUNAWAY, { timeoutMs: 300, maxRows: 10 }),
      // Sent while the runaway query runs: it waits behind it in the same process.
      new Promise((resolve) => setTimeout(resolve, 100)).then(() =>
        other.query('SELECT count(*) FROM b', LIMITS),
      ),
    ]);
    expect(stopped).toMatchObject({ kind: 'error', timedOut: true });
    expect(rows(waiting)).toEqual([[4n]]);
    // A new process: the old one was killed.
    expect(children().some((pid) => !before.includes(pid))).toBe(true);
    expect(rows(await other.query('SELECT n FROM note', LIMITS))).toEqual([[7n]]);
    expect(await other.query('ROLLBACK', LIMITS)).toMatchObject({ kind: 'ok' });
    expect(rows(await other.query('SELECT count(*) FROM b', LIMITS))).toEqual([[3n]]);
    expect(rows(await runaway.query('SELECT x FROM a ORDER BY x', LIMITS))).toEqual([[1n], [2n], [10n]]);
    await Promise.all([runaway.close(), other.close()]);
  });

  it('runs overlapping calls of a session in the order made, each time limit counted from its start', async () => {
    const session = await engine.open('one', { share: {} });
    expect(session.ordered).toBe(true);
    await session.query('INSERT INTO a VALUES (3)', LIMITS);
    await session.reset();
    // Some five million steps (about a second here), then the rows of the copy as the call finds it.
    const slow =
      'SELECT count(*) FROM a, (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 5000000) SELECT max(x) FROM c)';
    const [reference, deleted, counted] = await Promise.all([
      session.referenceQuery(slow, { timeoutMs: 60_000, maxRows: 10 }),
      // Made while the slow statement runs: it waits for it, and its limit starts when it runs.
      session.query('DELETE FROM a', { timeoutMs: 200, maxRows: 10 }),
      session.query('SELECT count(*) FROM a', LIMITS),
    ]);
    // The reset came before the reference statement, the DELETE after it.
    expect(rows(reference)).toEqual([[2n]]);
    expect(deleted).toMatchObject({ kind: 'ok', affectedRows: 2 });
    expect(rows(counted)).toEqual([[0n]]);
    await session.close();
  });

  it('a reset after only reading statements leaves the copy as it is; one after a session pragma (which returns no rows, so counts as a change) undoes it', async () => {
    const session = await engine.open('two');
    expect(rows(await session.query("SELECT count(*) FROM b WHERE y LIKE 'P'", LIMITS))).toEqual([[1n]]);
    await session.reset();
    expect(await session.query('PRAGMA case_sensitive_like = 1', LIMITS)).toMatchObject({ kind: 'ok' });
    expect(rows(await session.query("SELECT count(*) FROM b WHERE y LIKE 'P'", LIMITS))).toEqual([[0n]]);
    await session.reset();
    expect(rows(await session.query("SELECT count(*) FROM b WHERE y LIKE 'P'", LIMITS))).toEqual([[1n]]);
    await session.query("INSERT INTO b VALUES ('t')", LIMITS);
    await session.reset();
    await session.reset();
    expect(rows(await session.query('SELECT count(*) FROM b', LIMITS))).toEqual([[3n]]);
    await session.close();
  });

  it('a closed session of the share is closed; the others keep working', async () => {
    const owner = {};
    const gone: SqlSession = await engine.open('one', { share: owner });
    const kept = await engine.open('two', { share: owner });
    await gone.close();
    await expect(gone.query('SELECT 1', LIMITS)).rejects.toMatchObject({ code: 'SQL_SESSION_CLOSED' });
    expect(rows(await kept.query('SELECT count(*) FROM b', LIMITS))).toEqual([[3n]]);
    await kept.close();
  });
});
