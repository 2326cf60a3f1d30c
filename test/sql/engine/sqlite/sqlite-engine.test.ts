/**
 * The SQLite engine on a small hand-written dump: values, sessions, reset, time limits, row caps,
 * refused statements, failures. The upstream Spider and WikiSQL databases: sqlite-upstream.test.ts.
 */
import { readdirSync, statSync } from 'node:fs';
import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parseMysqlDump } from '../../../../src/sql/dump/parse-mysql-dump.js';
import type { QueryOutcome, SqlSession } from '../../../../src/sql/engine/sql-engine.js';
import { SqlEngineError } from '../../../../src/sql/engine/sql-engine-error.js';
import { SqliteEngine } from '../../../../src/sql/engine/sqlite/sqlite-engine.js';
import { temporaryDir } from '../../../envs/sql/sql-fixtures.js';

const DUMP = parseMysqlDump(`CREATE DATABASE IF NOT EXISTS \`shop\`;
USE \`shop\`;
CREATE TABLE \`item\` (
  \`id\` int NOT NULL AUTO_INCREMENT,
  \`name\` varchar(50) COLLATE utf8mb4_general_ci NOT NULL,
  \`price\` double DEFAULT NULL,
  \`cost\` decimal(10,2) DEFAULT NULL,
  \`code\` varchar(5) COLLATE utf8mb4_bin DEFAULT NULL,
  \`added\` datetime DEFAULT NULL,
  \`big\` bigint DEFAULT NULL,
  PRIMARY KEY (\`id\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;
INSERT INTO \`item\` VALUES (1,'Apple',1.5,2.50,'AbC','2020-01-02 03:04:05',9007199254740993),
(2,'banana',2,1.00,'abc','2021-06-01 00:00:00',NULL),(3,'O\\'Reilly',NULL,NULL,NULL,NULL,-1);
CREATE DATABASE \`other\`;
USE \`other\`;
CREATE TABLE \`secret\` (\`x\` int);
INSERT INTO \`secret\` VALUES (42);
`);

const LIMITS = { timeoutMs: 5000, maxRows: 1000 };
const RUNAWAY = 'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c) SELECT count(*) FROM c';
const TEN_MILLION =
  'WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 10000000) SELECT x FROM c';

function rows(outcome: QueryOutcome): unknown[][] {
  if (outcome.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(outcome)}`);
  return outcome.rows;
}

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? Number.NaN;
}

const cache = temporaryDir('sqlite-engine');
const engine = new SqliteEngine({ cacheDir: cache.dir });
let session: SqlSession;

beforeAll(async () => {
  await engine.prepare(DUMP);
  session = await engine.open('SHOP');
});

afterAll(async () => {
  await engine.close();
  cache.remove();
});

describe('SqliteEngine values and dialect', () => {
  it('returns native values: bigint for INTEGER, number for REAL, string, null, Buffer', async () => {
    const outcome = await session.query(
      'SELECT id, name, price, cost, big, added FROM item ORDER BY id',
      LIMITS,
    );
    expect(outcome).toMatchObject({
      kind: 'rows',
      columns: ['id', 'name', 'price', 'cost', 'big', 'added'],
      totalRows: 3,
      truncated: false,
    });
    expect(rows(outcome)).toEqual([
      [1n, 'Apple', 1.5, 2.5, 9007199254740993n, '2020-01-02 03:04:05'],
      [2n, 'banana', 2, 1, null, '2021-06-01 00:00:00'],
      [3n, "O'Reilly", null, null, -1n, null],
    ]);
    expect(rows(await session.query("SELECT x'00ff', 1.0, 1, 'a' || 'b', NULL", LIMITS))).toEqual([
      [Buffer.from([0, 255]), 1, 1n, 'ab', null],
    ]);
    expect(rows(await session.query('SELECT 1 AS a, 2 AS a', LIMITS))).toEqual([[1n, 2n]]);
  });

  it('compares text columns case-insensitively, except binary collations', async () => {
    expect(rows(await session.query("SELECT id FROM item WHERE name = 'APPLE'", LIMITS))).toEqual([[1n]]);
    expect(
      rows(
        await session.query("SELECT name FROM item WHERE name IN ('BANANA', 'apple') ORDER BY name", LIMITS),
      ),
    ).toEqual([['Apple'], ['banana']]);
    expect(rows(await session.query("SELECT id FROM item WHERE code = 'abc'", LIMITS))).toEqual([[2n]]);
    expect(rows(await session.query("SELECT id FROM item WHERE name LIKE 'APP%'", LIMITS))).toEqual([[1n]]);
  });

  it('reads a double-quoted non-column as a string, as MySQL and legacy SQLite do', async () => {
    expect(
      rows(await session.query('SELECT "name" FROM item WHERE name = "banana" OR "x" = "y"', LIMITS)),
    ).toEqual([['banana']]);
    const strict = new SqliteEngine({ cacheDir: cache.dir, doubleQuotedStrings: false });
    try {
      await strict.prepare(DUMP);
      const other = await strict.open('shop');
      expect(await other.query('SELECT id FROM item WHERE name = "banana"', LIMITS)).toMatchObject({
        kind: 'error',
        code: 'SQLITE_ERROR',
        message: 'no such column: "banana" - should this be a string literal in single-quotes?',
      });
    } finally {
      await strict.close();
    }
  });

  it('gives AUTO_INCREMENT ids and reports affected rows', async () => {
    expect(await session.query("INSERT INTO item (name) VALUES ('cherry'), ('date')", LIMITS)).toMatchObject({
      kind: 'ok',
      affectedRows: 2,
    });
    expect(rows(await session.query('SELECT max(id) FROM item', LIMITS))).toEqual([[5n]]);
    expect(await session.query('CREATE TABLE t (a)', LIMITS)).toMatchObject({ kind: 'ok', affectedRows: 0 });
    await session.reset();
  });

  it('reports query errors as outcomes with the engine code', async () => {
    expect(await session.query('SELECT * FROM nowhere', LIMITS)).toMatchObject({
      kind: 'error',
      message: 'no such table: nowhere',
      code: 'SQLITE_ERROR',
    });
    expect(await session.query('SELEC 1', LIMITS)).toMatchObject({
      kind: 'error',
      message: 'near "SELEC": syntax error',
    });
    expect(await session.query("INSERT INTO item (id, name) VALUES (1, 'dup')", LIMITS)).toMatchObject({
      kind: 'error',
      code: 'SQLITE_CONSTRAINT_PRIMARYKEY',
    });
  });
});

describe('SqliteEngine sessions', () => {
  it('resets to the pristine database after DDL, DML and an open transaction', async () => {
    const pristine = rows(await session.query('SELECT * FROM item ORDER BY id', LIMITS));
    for (const sql of [
      'BEGIN',
      "UPDATE item SET name = 'changed'",
      'DELETE FROM item WHERE id = 2',
      'DROP TABLE item',
      'CREATE TABLE item (x)',
      'PRAGMA case_sensitive_like = ON',
    ]) {
      expect(await session.query(sql, LIMITS), sql).toMatchObject({ kind: 'ok' });
    }
    await session.reset();
    expect(rows(await session.query('SELECT * FROM item ORDER BY id', LIMITS))).toEqual(pristine);
    expect(await session.query('BEGIN', LIMITS)).toMatchObject({ kind: 'ok' });
    expect(rows(await session.query("SELECT count(*) FROM item WHERE name LIKE 'apple'", LIMITS))).toEqual([
      [1n],
    ]);
    await session.reset();
  });

  it('keeps sessions apart and reaches only its own database', async () => {
    const second = await engine.open('shop');
    try {
      await session.query('DELETE FROM item', LIMITS);
      expect(rows(await second.query('SELECT count(*) FROM item', LIMITS))).toEqual([[3n]]);
      expect(await session.query('SELECT * FROM other.secret', LIMITS)).toMatchObject({ kind: 'error' });
      expect(await session.query('SELECT * FROM secret', LIMITS)).toMatchObject({ kind: 'error' });
    } finally {
      await second.close();
      await session.reset();
    }
  });

  it('resets in well under 5 ms and answers a trivial query in well under a millisecond', async () => {
    for (let i = 0; i < 50; i++) await session.query('SELECT 1', LIMITS);
    const queries: number[] = [];
    for (let i = 0; i < 500; i++) {
      const start = performance.now();
      await session.query('SELECT 1', LIMITS);
      queries.push(performance.now() - start);
    }
    const resets: number[] = [];
    for (let i = 0; i < 100; i++) {
      await session.query("UPDATE item SET name = 'x'", LIMITS);
      const start = performance.now();
      await session.reset();
      resets.push(performance.now() - start);
    }
    console.log(
      `sqlite: query round trip median ${median(queries).toFixed(3)} ms, reset median ${median(resets).toFixed(3)} ms`,
    );
    expect(median(resets)).toBeLessThan(5);
    expect(median(queries)).toBeLessThan(1);
  });

  it('cancels a runaway query at its time limit and keeps the session and its state', async () => {
    await session.query('BEGIN', LIMITS);
    await session.query("INSERT INTO item (name) VALUES ('kept')", LIMITS);
    const start = performance.now();
    const outcome = await session.query(RUNAWAY, { timeoutMs: 300, maxRows: 10 });
    const took = performance.now() - start;
    expect(outcome).toMatchObject({
      kind: 'error',
      code: 'TIMEOUT',
      timedOut: true,
      message: 'query timed out after 300 ms',
    });
    expect(took).toBeGreaterThanOrEqual(299);
    expect(took).toBeLessThan(1500);
    expect(rows(await session.query("SELECT count(*) FROM item WHERE name = 'kept'", LIMITS))).toEqual([
      [1n],
    ]);
    expect(await session.query('ROLLBACK', LIMITS)).toMatchObject({ kind: 'ok' });
    expect(rows(await session.query('SELECT count(*) FROM item', LIMITS))).toEqual([[3n]]);
    await session.reset();
  });

  it('caps returned rows and stops counting at the bound on a 10-million-row query', async () => {
    const start = performance.now();
    const outcome = await session.query(TEN_MILLION, { timeoutMs: 10_000, maxRows: 10 });
    expect(performance.now() - start).toBeLessThan(5000);
    expect(outcome).toMatchObject({
      kind: 'rows',
      columns: ['x'],
      truncated: true,
      totalRows: 100_000,
      totalRowsCapped: true,
    });
    expect(rows(outcome)).toEqual([[1n], [2n], [3n], [4n], [5n], [6n], [7n], [8n], [9n], [10n]]);
    const exact = await session.query('SELECT * FROM item', { timeoutMs: 5000, maxRows: 2 });
    expect(exact).toMatchObject({ kind: 'rows', totalRows: 3, truncated: true });
    expect(exact).not.toHaveProperty('totalRowsCapped');
    const all = await session.query('SELECT * FROM item', {
      timeoutMs: 5000,
      maxRows: Number.POSITIVE_INFINITY,
    });
    expect(all).toMatchObject({ kind: 'rows', totalRows: 3, truncated: false });
  });

  it('refuses several statements, and statements that reach outside, and keeps serving', async () => {
    expect(await session.query('SELECT 1; DELETE FROM item', LIMITS)).toMatchObject({
      kind: 'error',
      code: 'MULTIPLE_STATEMENTS',
      message: 'one statement per action: the query holds 2 statements',
    });
    for (const sql of [
      `ATTACH DATABASE '${join(cache.dir, 'x.db')}' AS x`,
      `VACUUM INTO '${join(cache.dir, 'copy.db')}'`,
      'PRAGMA hard_heap_limit = 1',
    ]) {
      expect(await session.query(sql, LIMITS), sql).toMatchObject({
        kind: 'error',
        code: 'FORBIDDEN_STATEMENT',
      });
    }
    expect(await session.query('   ', LIMITS)).toMatchObject({ kind: 'error', code: 'EMPTY_QUERY' });
    expect(readdirSync(cache.dir).filter((name) => name.endsWith('.db'))).toEqual([]);
    expect(rows(await session.query('SELECT count(*) FROM item', LIMITS))).toEqual([[3n]]);
    expect(rows(await session.query('PRAGMA table_info(item)', LIMITS))).toHaveLength(7);
  });

  it('relies on SQLite refusing the load_extension function and oversized values too', async () => {
    const raw = new Database(':memory:');
    try {
      expect(() => raw.prepare("SELECT load_extension('/nonexistent/evil')").get()).toThrow(/not authorized/);
    } finally {
      raw.close();
    }
    for (const sql of ["SELECT load_extension('/nonexistent/evil')", 'SELECT "LOAD_EXTENSION"(\'x\')']) {
      const outcome = await session.query(sql, LIMITS);
      expect(outcome, sql).toMatchObject({ kind: 'error', message: 'not authorized' });
      expect(outcome.kind === 'error' && outcome.code).not.toBe('FORBIDDEN_STATEMENT');
    }
    expect(await session.query('SELECT length(randomblob(2000000000))', LIMITS)).toMatchObject({
      kind: 'error',
    });
    expect(rows(await session.query('SELECT 1', LIMITS))).toEqual([[1n]]);
  });
});

describe('SqliteEngine memory limit', () => {
  it('ends a query that passes the memory limit, and restores the session state', async () => {
    const small = new SqliteEngine({ cacheDir: cache.dir, memoryBytes: 160 * 2 ** 20 });
    try {
      await small.prepare(DUMP);
      const own = await small.open('shop');
      await own.query("INSERT INTO item (name) VALUES ('kept')", LIMITS);
      const huge =
        'SELECT length(group_concat(hex(randomblob(1000000)))) FROM (WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x+1 FROM c WHERE x < 400) SELECT x FROM c)';
      const outcome = await own.query(huge, { timeoutMs: 20_000, maxRows: 10 });
      expect(outcome).toMatchObject({ kind: 'error', code: 'ENGINE_CRASHED' });
      expect(outcome.kind === 'error' && outcome.message).toMatch(
        /^the query ended the SQLite process: memory limit exceeded \(\d+ MiB\)$/,
      );
      expect(rows(await own.query('SELECT count(*) FROM item', LIMITS))).toEqual([[4n]]);
    } finally {
      await small.close();
    }
  });
});

describe('SqliteEngine life cycle', () => {
  it('builds a database file once and reuses it', async () => {
    const files = () =>
      readdirSync(cache.dir, { recursive: true })
        .map(String)
        .filter((name) => name.endsWith('.sqlite'))
        .sort();
    expect(files()).toHaveLength(2);
    const [file] = files();
    const before = statSync(join(cache.dir, file!)).mtimeMs;
    const again = new SqliteEngine({ cacheDir: cache.dir });
    await again.prepare(DUMP);
    await again.close();
    expect(statSync(join(cache.dir, file!)).mtimeMs).toBe(before);
  });

  it('throws typed errors for misuse', async () => {
    await expect(engine.open('nowhere')).rejects.toMatchObject({ code: 'SQL_DATABASE_UNKNOWN' });
    const other = await engine.open('other');
    await other.close();
    await other.close();
    await expect(other.query('SELECT 1', LIMITS)).rejects.toBeInstanceOf(SqlEngineError);
    await expect(other.query('SELECT 1', LIMITS)).rejects.toMatchObject({ code: 'SQL_SESSION_CLOSED' });
    const clash = parseMysqlDump('CREATE DATABASE shop; USE shop; CREATE TABLE t (a int);');
    await expect(engine.prepare(clash)).rejects.toMatchObject({ code: 'SQL_ENGINE_FAILED' });
  });

  it('fails to build a database SQLite cannot hold, naming the row', async () => {
    const broken = parseMysqlDump(
      "CREATE DATABASE dup; USE dup; CREATE TABLE t (k varchar(5), PRIMARY KEY (k)); INSERT INTO t VALUES ('a'),('A');",
    );
    const fresh = new SqliteEngine({ cacheDir: cache.dir });
    await expect(fresh.prepare(broken)).rejects.toThrow(
      /dup\.t row 2 does not load into SQLite: UNIQUE constraint failed/,
    );
    await fresh.close();
  });

  it('closes its sessions when it closes', async () => {
    const own = new SqliteEngine({ cacheDir: cache.dir });
    await own.prepare(DUMP);
    const open = await own.open('shop');
    await own.close();
    await expect(open.query('SELECT 1', LIMITS)).rejects.toMatchObject({ code: 'SQL_SESSION_CLOSED' });
    await expect(own.open('shop')).rejects.toMatchObject({ code: 'SQL_SESSION_CLOSED' });
  });
});
