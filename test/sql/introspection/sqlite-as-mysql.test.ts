/**
 * The SQLite engine read as MySQL: SQLite's declared types and defaults as MySQL's, and the engine's
 * answers to MySQL-style introspection compared with what MySQL answered the paper's GPT-4 agent in
 * the recorded Spider trajectories.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pyRowStrs } from '../../../src/envs/python-compat/python-repr.js';
import { toPythonRows } from '../../../src/envs/sql/python-rows.js';
import type { DumpTable } from '../../../src/sql/dump/dump-model.js';
import type { QueryOutcome, SqlSession } from '../../../src/sql/engine/sql-engine.js';
import { defaultOfSqlite, mysqlTypeOfSqlite } from '../../../src/sql/engine/sqlite/sqlite-catalogue.js';
import { SqliteEngine } from '../../../src/sql/engine/sqlite/sqlite-engine.js';
import {
  MIRROR,
  MIRROR_PRESENT,
  mirrorDump,
  SPIDER_DUMP,
  SPIDER_TASKS,
  temporaryDir,
} from '../../envs/sql/sql-fixtures.js';

const RECORDED = join(MIRROR, 'data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json');

describe('SQLite declared types and defaults read as MySQL', () => {
  it('maps declared types', () => {
    expect(mysqlTypeOfSqlite('INTEGER')).toBe('int');
    expect(mysqlTypeOfSqlite('INT(11)')).toBe('int');
    expect(mysqlTypeOfSqlite('VARCHAR( 20 )')).toBe('varchar(20)');
    expect(mysqlTypeOfSqlite('REAL')).toBe('double');
    expect(mysqlTypeOfSqlite('NUM')).toBe('decimal(10,0)');
    expect(mysqlTypeOfSqlite('')).toBe('text');
    expect(mysqlTypeOfSqlite('Strange Thing')).toBe('strange thing');
  });

  it('maps defaults', () => {
    expect(defaultOfSqlite(null)).toBeUndefined();
    expect(defaultOfSqlite("'it''s'")).toEqual({ kind: 'string', value: "it's" });
    expect(defaultOfSqlite('-1.5')).toEqual({ kind: 'decimal', text: '-1.5' });
    expect(defaultOfSqlite('7')).toEqual({ kind: 'integer', text: '7' });
    expect(defaultOfSqlite('NULL')).toEqual({ kind: 'null' });
    expect(defaultOfSqlite('current_timestamp')).toEqual({ kind: 'expression', text: 'CURRENT_TIMESTAMP' });
    expect(defaultOfSqlite('(1 + 2)')).toEqual({ kind: 'expression', text: '(1 + 2)' });
  });
});

describe.runIf(MIRROR_PRESENT)('the SQLite engine answers as MySQL did (Spider)', () => {
  const cache = temporaryDir('mysql-introspection');
  const engine = new SqliteEngine({ cacheDir: cache.dir });
  const LIMITS = { timeoutMs: 10_000, maxRows: 100_000 };

  beforeAll(async () => {
    await engine.prepare(mirrorDump(SPIDER_DUMP));
  }, 60_000);

  afterAll(async () => {
    await engine.close();
    cache.remove();
  });

  const pyText = (outcome: QueryOutcome) =>
    outcome.kind === 'rows' ? `[${pyRowStrs(toPythonRows('sqlite', outcome)).join(', ')}]` : outcome;

  it.runIf(existsSync(RECORDED))(
    "gives MySQL's answers to the recorded GPT-4 SHOW/DESCRIBE actions (except where upstream leaked state)",
    async () => {
      const recorded = JSON.parse(readFileSync(RECORDED, 'utf8')) as Record<
        string,
        { turn_history: { actions: string[]; observations: unknown[] } }
      >;
      const tasks = JSON.parse(readFileSync(SPIDER_TASKS, 'utf8')) as { db: string }[];
      const sessions = new Map<string, SqlSession>();
      let same = 0;
      const different: { action: string; mysql: string; ours: unknown }[] = [];
      for (const [index, episode] of Object.entries(recorded)) {
        const database = tasks[Number(index)]!.db;
        const { actions, observations } = episode.turn_history;
        for (const [turn, action] of actions.entries()) {
          if (!/^\s*(show|desc|describe|explain)\b/i.test(action)) continue;
          let session = sessions.get(database);
          if (!session) {
            session = await engine.open(database);
            sessions.set(database, session);
          }
          const outcome = await session.query(action, LIMITS);
          // mysql.connector returned Type and Default as bytes (b'int'); the values are the same.
          const mysql = String(observations[turn]).replace(/b'([^']*)'/g, "'$1'");
          const ours =
            outcome.kind === 'error' ? `Error executing query: ${outcome.message}` : pyText(outcome);
          if (ours === mysql) same++;
          else different.push({ action, mysql, ours });
        }
      }
      expect(same).toBeGreaterThan(1900);
      // Upstream never reset its database: columns added by earlier episodes (ALTER TABLE … ADD
      // COLUMN) show up in later DESCRIBEs, and one episode's `USE world_1` moved it to another
      // database; SHOW DATABASES listed the whole server.
      expect(different.length).toBeLessThanOrEqual(20);
      for (const { action, mysql, ours } of different) {
        const explained =
          /^SHOW (DATABASES|TABLES)$/i.test(action.trim()) ||
          (typeof ours === 'string' && mysql.startsWith(ours.slice(0, -1)));
        expect(explained, `${action}\nMySQL: ${mysql}\nours:  ${String(ours)}`).toBe(true);
      }
    },
    60_000,
  );

  it('SHOW CREATE TABLE of an unchanged table is the dump’s own text, names lower-cased', async () => {
    const session = await engine.open('flight_2');
    const outcome = await session.query('SHOW CREATE TABLE Flights', LIMITS);
    const dump = mirrorDump(SPIDER_DUMP)
      .databases.find((database) => database.name === 'flight_2')!
      .tables.find((table) => table.name === 'FLIGHTS') as DumpTable;
    expect(outcome).toMatchObject({ kind: 'rows', columns: ['Table', 'Create Table'] });
    expect(outcome.kind === 'rows' && outcome.rows).toEqual([
      [
        'flights',
        dump.createSql
          .replace('`FLIGHTS`', '`flights`')
          .replaceAll('REFERENCES `AIRPORTS`', 'REFERENCES `airports`'),
      ],
    ]);
    expect(dump.createSql).toMatch(/REFERENCES `AIRPORTS`/);
    await session.close();
  });

  it('follows the agent’s changes: new tables, indexes, columns and views; reset forgets them', async () => {
    const session = await engine.open('world_1');
    const rows = async (sql: string) => {
      const outcome = await session.query(sql, LIMITS);
      if (outcome.kind !== 'rows') throw new Error(`${sql}: ${JSON.stringify(outcome)}`);
      return outcome.rows;
    };
    const pristineCity = await rows('DESCRIBE city');
    expect(pristineCity).toEqual([
      ['ID', 'int', 'NO', 'PRI', null, 'auto_increment'],
      ['Name', 'char(35)', 'NO', '', '', ''],
      ['CountryCode', 'char(3)', 'NO', 'MUL', '', ''],
      ['District', 'char(20)', 'NO', '', '', ''],
      ['Population', 'int', 'NO', '', '0', ''],
    ]);
    await session.query('CREATE INDEX city_name ON city (Name)', LIMITS);
    await session.query('ALTER TABLE city ADD COLUMN Mayor VARCHAR(30) DEFAULT NULL', LIMITS);
    const changed = await rows('DESCRIBE city');
    expect(changed.slice(0, 5)).toEqual(
      pristineCity.map((row) => (row[0] === 'Name' ? ['Name', 'char(35)', 'NO', 'MUL', '', ''] : row)),
    );
    expect(changed[5]).toEqual(['Mayor', 'varchar(30)', 'YES', '', null, '']);
    expect((await rows('SHOW INDEX FROM city')).map((row) => row[2])).toEqual([
      'PRIMARY',
      'city_FK_0_0',
      'city_name',
    ]);
    await session.query('CREATE VIEW big AS SELECT Name FROM city WHERE Population > 1000000', LIMITS);
    await session.query(
      "CREATE TABLE visit (id INTEGER PRIMARY KEY AUTOINCREMENT, city INT NOT NULL REFERENCES city (ID), note TEXT DEFAULT 'n/a', UNIQUE (city, note))",
      LIMITS,
    );
    expect(await rows('SHOW FULL TABLES')).toEqual([
      ['big', 'VIEW'],
      ['city', 'BASE TABLE'],
      ['country', 'BASE TABLE'],
      ['countrylanguage', 'BASE TABLE'],
      ['visit', 'BASE TABLE'],
    ]);
    expect(await rows('DESCRIBE visit')).toEqual([
      ['id', 'int', 'NO', 'PRI', null, 'auto_increment'],
      ['city', 'int', 'NO', 'MUL', null, ''],
      ['note', 'text', 'YES', '', 'n/a', ''],
    ]);
    expect(await rows('DESCRIBE big')).toEqual([['Name', 'char(35)', 'YES', '', null, '']]);
    await session.query('DROP TABLE country', LIMITS);
    expect(await session.query('DESCRIBE country', LIMITS)).toMatchObject({
      kind: 'error',
      message: "Table 'world_1.country' doesn't exist",
      code: 'ER_NO_SUCH_TABLE',
    });
    await session.reset();
    expect(await rows('SHOW TABLES')).toEqual([['city'], ['country'], ['countrylanguage']]);
    expect(await rows('DESCRIBE city')).toEqual(pristineCity);
    expect(await rows('SHOW CREATE TABLE city')).toHaveLength(1);
    await session.close();
  });

  it('keeps the row limit and answers within an open transaction', async () => {
    const session = await engine.open('world_1');
    expect(await session.query('DESCRIBE country', { timeoutMs: 5_000, maxRows: 2 })).toMatchObject({
      kind: 'rows',
      totalRows: 15,
      truncated: true,
      rows: [expect.any(Array), expect.any(Array)],
    });
    await session.query('BEGIN', LIMITS);
    await session.query('CREATE TABLE draft (x INT)', LIMITS);
    expect(await session.query('SHOW TABLES LIKE "d%"', LIMITS)).toMatchObject({ rows: [['draft']] });
    await session.query('ROLLBACK', LIMITS);
    expect(await session.query('SHOW TABLES LIKE "d%"', LIMITS)).toMatchObject({ rows: [] });
    await session.close();
  });
});
