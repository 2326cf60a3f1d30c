/**
 * MySQL's introspection statements on the PostgreSQL engine (`postgres-catalogue.ts`): answered in
 * MySQL's shape, from the dump model for tables unchanged since the dump and from `pg_catalog` for
 * the agent's own. Skipped when PostgreSQL is not installed or the upstream data mirror is missing.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { PostgresEngine } from '../../../../src/sql/engine/postgres/postgres-engine.js';
import type { QueryOutcome, SqlSession } from '../../../../src/sql/engine/sql-engine.js';
import { postgresBinaries } from '../../../../src/sql/server/server-binaries.js';
import { MIRROR_PRESENT, mirrorDump, SPIDER_DUMP } from '../../../envs/sql/sql-fixtures.js';

function installed(): boolean {
  try {
    postgresBinaries();
    return true;
  } catch {
    return false;
  }
}

const OPTIONS = { timeoutMs: 30_000, maxRows: 1000 };

function rows(outcome: QueryOutcome): { columns: string[]; rows: unknown[][] } {
  if (outcome.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(outcome)}`);
  return outcome;
}

describe.skipIf(!installed() || !MIRROR_PRESENT)('PostgresEngine: MySQL introspection', () => {
  let engine: PostgresEngine;
  let session: SqlSession;

  beforeAll(async () => {
    engine = await PostgresEngine.start();
    await engine.prepare(mirrorDump(SPIDER_DUMP));
    session = await engine.open('concert_singer');
  }, 300_000);

  afterAll(async () => {
    await session?.close();
    await engine?.close();
  });

  /** The session still answers ordinary queries (its transaction is intact). */
  async function stillWorks(): Promise<void> {
    const outcome = rows(await session.query('SELECT count(*) FROM singer', OPTIONS));
    expect(Number(outcome.rows[0]?.[0])).toBe(6);
  }

  it('SHOW TABLES lists the tables under Tables_in_<db>', async () => {
    const outcome = rows(await session.query('SHOW TABLES', OPTIONS));
    expect(outcome.columns).toEqual(['Tables_in_concert_singer']);
    expect(outcome.rows.map(([name]) => name)).toEqual(['concert', 'singer', 'singer_in_concert', 'stadium']);
    await stillWorks();
  });

  it('DESCRIBE singer answers with MySQL types from the dump model', async () => {
    const outcome = rows(await session.query('DESCRIBE singer', OPTIONS));
    expect(outcome.columns).toEqual(['Field', 'Type', 'Null', 'Key', 'Default', 'Extra']);
    expect(outcome.rows).toHaveLength(7);
    const id = outcome.rows.find(([field]) => String(field).toLowerCase() === 'singer_id');
    expect(id).toEqual(['Singer_ID', 'int', 'NO', 'PRI', null, 'auto_increment']);
    expect(outcome.rows.find(([field]) => field === 'Is_male')?.[1]).toBe('varchar(255)');
    const name = outcome.rows.find(([field]) => String(field).toLowerCase() === 'name');
    expect(name?.[1]).toBe('text');
    const columns = rows(await session.query('SHOW COLUMNS FROM `Singer`', OPTIONS));
    expect(columns.rows).toEqual(outcome.rows);
    await stillWorks();
  });

  it('EXPLAIN SELECT still goes to PostgreSQL', async () => {
    const outcome = rows(await session.query('EXPLAIN SELECT * FROM singer', OPTIONS));
    expect(outcome.columns).toEqual(['QUERY PLAN']);
  });

  it('a table the agent created is listed and described from the catalogue', async () => {
    expect((await session.query('CREATE TABLE t2 (a integer primary key, b text)', OPTIONS)).kind).toBe('ok');
    const tables = rows(await session.query('SHOW TABLES', OPTIONS));
    expect(tables.rows.map(([name]) => name)).toContain('t2');
    const described = rows(await session.query('DESC t2', OPTIONS));
    expect(described.rows).toEqual([
      ['a', 'int', 'NO', 'PRI', null, ''],
      ['b', 'text', 'YES', '', null, ''],
    ]);
    await stillWorks();
    expect(rows(await session.query('SELECT count(*) FROM t2', OPTIONS)).rows).toEqual([[0n]]);
  });

  it('a changed dump table is described from the catalogue, keeping the dump types', async () => {
    expect((await session.query('ALTER TABLE stadium ADD COLUMN extra varchar(20)', OPTIONS)).kind).toBe(
      'ok',
    );
    const described = rows(await session.query('DESCRIBE stadium', OPTIONS));
    const last = described.rows.at(-1);
    expect(last?.slice(0, 2)).toEqual(['extra', 'varchar(20)']);
    expect(described.rows.find(([field]) => field === 'stadium_id')?.slice(1, 4)).toEqual([
      'int',
      'NO',
      'PRI',
    ]);
  });

  it('an unknown table is ER_NO_SUCH_TABLE and the session goes on', async () => {
    const outcome = await session.query('DESCRIBE nosuch', OPTIONS);
    expect(outcome).toMatchObject({ kind: 'error', code: 'ER_NO_SUCH_TABLE' });
    expect(outcome.durationMs).toBeGreaterThanOrEqual(0);
    await stillWorks();
  });

  it('honours maxRows', async () => {
    const outcome = rows(await session.query('SHOW TABLES', { ...OPTIONS, maxRows: 2 }));
    expect(outcome.rows).toHaveLength(2);
  });

  it('a reset drops the agent table from SHOW TABLES', async () => {
    await session.reset();
    const tables = rows(await session.query('SHOW TABLES', OPTIONS));
    expect(tables.rows.map(([name]) => name)).toEqual(['concert', 'singer', 'singer_in_concert', 'stadium']);
    const described = rows(await session.query('DESCRIBE stadium', OPTIONS));
    expect(described.rows.map(([field]) => field)).not.toContain('extra');
    await stillWorks();
  });
});
