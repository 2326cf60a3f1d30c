/**
 * MySQL-style introspection (`SHOW TABLES`, `DESCRIBE t`, …): recognition from tokens, answers from a
 * hand-made catalogue, and the SQLite engine's answers compared with what MySQL answered the paper's
 * GPT-4 agent in the recorded Spider trajectories.
 */
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { pyRowStrs } from '../../../src/envs/python-compat/python-repr.js';
import { toPythonRows } from '../../../src/envs/sql/python-rows.js';
import type { DumpColumn, DumpTable } from '../../../src/sql/dump/dump-model.js';
import { splitStatements } from '../../../src/sql/dump/split-statements.js';
import type { QueryOutcome, SqlSession } from '../../../src/sql/engine/sql-engine.js';
import { defaultOfSqlite, mysqlTypeOfSqlite } from '../../../src/sql/engine/sqlite/sqlite-catalogue.js';
import { SqliteEngine } from '../../../src/sql/engine/sqlite/sqlite-engine.js';
import {
  answerMysqlIntrospection,
  type IntrospectionOutcome,
} from '../../../src/sql/introspection/answer-mysql-introspection.js';
import type { MysqlCatalogue, TableDescription } from '../../../src/sql/introspection/mysql-catalogue.js';
import { likePattern } from '../../../src/sql/introspection/mysql-like-pattern.js';
import { recognizeMysqlIntrospection } from '../../../src/sql/introspection/recognize-mysql-introspection.js';
import {
  MIRROR,
  MIRROR_PRESENT,
  mirrorDump,
  SPIDER_DUMP,
  SPIDER_TASKS,
  temporaryDir,
} from '../../envs/sql/sql-fixtures.js';

const RECORDED = join(MIRROR, 'data/results/sql/gpt-4/ic_sql_multiturn_gpt-4_10_turns.json');

function tokens(sql: string) {
  const [statement] = splitStatements(sql, 'sqlite');
  if (!statement) throw new Error('no statement');
  return statement.tokens;
}

function recognize(sql: string) {
  return recognizeMysqlIntrospection(tokens(sql));
}

function column(name: string, mysqlType: string, extra: Partial<DumpColumn> = {}): DumpColumn {
  return { name, mysqlType, notNull: false, autoIncrement: false, ...extra };
}

/** A catalogue over hand-written table descriptions. */
function catalogue(tables: TableDescription[], database = 'Shop_DB'): MysqlCatalogue {
  return {
    database,
    databaseCollation: 'utf8mb4_general_ci',
    listTables: async () => tables.map((table) => ({ name: table.name, kind: table.kind ?? 'table' })),
    describeTable: async (name) => tables.find((table) => table.name.toLowerCase() === name.toLowerCase()),
  };
}

const ORDERS: TableDescription = {
  name: 'Orders',
  columns: [
    column('shop', 'int', { notNull: true }),
    column('number', 'int', { notNull: true, autoIncrement: true }),
    column('code', 'varchar(10)', { notNull: true, default: { kind: 'string', value: 'none' } }),
    column('customer', 'int'),
    column('placed', 'timestamp', { notNull: true, default: { kind: 'expression', text: 'now()' } }),
    column('total', 'decimal(10,2)', { default: { kind: 'decimal', text: '0.00' }, collation: 'x' }),
    column('note', 'text', { collation: 'utf8mb4_bin' }),
  ],
  primaryKey: ['shop', 'number'],
  indexes: [
    { name: 'by_customer', columns: ['customer', 'placed'], unique: false },
    { columns: ['code'], unique: true },
    { name: 'pair', columns: ['customer', 'total'], unique: true },
  ],
  foreignKeys: [
    { name: 'orders_shop', columns: ['shop'], refTable: 'Shops', refColumns: ['id'] },
    { columns: ['total'], refTable: 'Totals', refColumns: ['value'] },
  ],
};

/** No primary key: the first UNIQUE key with only NOT NULL columns shows as PRI. */
const TAGS: TableDescription = {
  name: 'tags',
  columns: [column('label', 'varchar(20)', { notNull: true }), column('weight', 'double')],
  primaryKey: [],
  indexes: [{ name: 'label', columns: ['label'], unique: true }],
  foreignKeys: [],
};

const VIEW: TableDescription = {
  name: 'big_orders',
  kind: 'view',
  columns: [column('number', 'int')],
  primaryKey: [],
  indexes: [],
  foreignKeys: [],
  createSql: 'CREATE VIEW big_orders AS SELECT number FROM Orders WHERE total > 100',
};

const SHOP = catalogue([ORDERS, TAGS, VIEW]);

async function answer(sql: string, options = {}, on = SHOP): Promise<IntrospectionOutcome> {
  const statement = recognize(sql);
  if (!statement) throw new Error(`not recognised: ${sql}`);
  return answerMysqlIntrospection(statement, on, options);
}

async function rowsOf(sql: string, options = {}, on = SHOP): Promise<unknown[][]> {
  const outcome = await answer(sql, options, on);
  if (outcome.kind !== 'rows') throw new Error(`expected rows, got ${JSON.stringify(outcome)}`);
  return outcome.rows;
}

describe('recognizeMysqlIntrospection', () => {
  it('recognises the covered statements case-insensitively, with quoted and qualified names', () => {
    expect(recognize('show tables')).toEqual({ kind: 'show-tables', full: false });
    expect(recognize('SHOW FULL TABLES IN shop_db LIKE "o%";')).toEqual({
      kind: 'show-tables',
      full: true,
      database: 'shop_db',
      like: 'o%',
    });
    expect(recognize('Show Schemas')).toEqual({ kind: 'show-databases' });
    expect(recognize("SHOW DATABASES LIKE 'shop%'")).toEqual({ kind: 'show-databases', like: 'shop%' });
    for (const sql of ['DESCRIBE orders', 'desc `orders`', 'EXPLAIN "orders"', 'describe [orders]']) {
      expect(recognize(sql)).toEqual({ kind: 'show-columns', table: 'orders', full: false });
    }
    expect(recognize("DESC shop_db.orders 'c%'")).toEqual({
      kind: 'show-columns',
      table: 'orders',
      database: 'shop_db',
      full: false,
      like: 'c%',
    });
    expect(recognize('describe orders code')).toMatchObject({ kind: 'show-columns', like: 'code' });
    expect(recognize('SHOW COLUMNS FROM orders FROM shop_db')).toEqual({
      kind: 'show-columns',
      table: 'orders',
      database: 'shop_db',
      full: false,
    });
    expect(recognize("show full fields in orders like 'c%'")).toEqual({
      kind: 'show-columns',
      table: 'orders',
      full: true,
      like: 'c%',
    });
    expect(recognize('SHOW EXTENDED COLUMNS FROM orders')).toMatchObject({
      kind: 'show-columns',
      full: false,
    });
    expect(recognize('SHOW CREATE TABLE `shop_db`.`orders`')).toEqual({
      kind: 'show-create-table',
      table: 'orders',
      database: 'shop_db',
    });
    for (const sql of ['SHOW INDEX FROM orders', 'show indexes in orders', 'SHOW KEYS FROM orders']) {
      expect(recognize(sql)).toEqual({ kind: 'show-index', table: 'orders' });
    }
  });

  it('leaves other statements alone: SELECT, EXPLAIN SELECT, EXPLAIN QUERY PLAN, DESC in ORDER BY', () => {
    for (const sql of [
      'SELECT * FROM orders ORDER BY number DESC',
      'EXPLAIN SELECT 1',
      'EXPLAIN QUERY PLAN SELECT * FROM orders',
      'explain query plan',
      'DESCRIBE SELECT 1',
      'EXPLAIN FORMAT=JSON SELECT 1',
      'DESC a b c',
      'WITH show AS (SELECT 1) SELECT * FROM show',
    ]) {
      expect(recognize(sql), sql).toBeUndefined();
    }
  });

  it('turns other SHOW statements and WHERE filters into "unsupported" naming what is covered', () => {
    expect(recognize('SHOW VARIABLES')).toMatchObject({
      kind: 'unsupported',
      message: expect.stringMatching(
        /^SHOW VARIABLES is not supported .*SHOW TABLES, SHOW DATABASES, DESCRIBE t/,
      ),
    });
    expect(recognize('SHOW TABLE STATUS')).toMatchObject({ kind: 'unsupported' });
    expect(recognize("SHOW TABLES WHERE Tables_in_x = 'a'")).toMatchObject({
      kind: 'unsupported',
      message: expect.stringMatching(/WHERE .*use LIKE/),
    });
    expect(recognize('SHOW COLUMNS FROM orders WHERE Field = 1')).toMatchObject({ kind: 'unsupported' });
  });

  it('reads LIKE patterns as MySQL: % and _, backslash escapes, case-insensitive', () => {
    expect(likePattern('c%').test('Customer')).toBe(true);
    expect(likePattern('c_de').test('code')).toBe(true);
    expect(likePattern('c_de').test('coode')).toBe(false);
    expect(likePattern('a\\_b').test('a_b')).toBe(true);
    expect(likePattern('a\\_b').test('axb')).toBe(false);
    expect(likePattern('x.y(').test('x.y(')).toBe(true);
  });
});

describe('answerMysqlIntrospection on a catalogue', () => {
  it('SHOW TABLES: Tables_in_<db>, sorted, lower-cased as lower_case_table_names=1; FULL adds Table_type', async () => {
    expect(await answer('SHOW TABLES')).toEqual({
      kind: 'rows',
      columns: ['Tables_in_shop_db'],
      rows: [['big_orders'], ['orders'], ['tags']],
      totalRows: 3,
      truncated: false,
    });
    expect(await rowsOf('SHOW FULL TABLES')).toEqual([
      ['big_orders', 'VIEW'],
      ['orders', 'BASE TABLE'],
      ['tags', 'BASE TABLE'],
    ]);
    const liked = await answer("SHOW TABLES LIKE 'O%'");
    expect(liked).toMatchObject({ columns: ['Tables_in_shop_db (O%)'], rows: [['orders']] });
    expect(await answer('SHOW TABLES', { lowerCaseTableNames: false })).toMatchObject({
      columns: ['Tables_in_Shop_DB'],
      rows: [['Orders'], ['big_orders'], ['tags']],
    });
    expect(await answer('SHOW TABLES FROM other')).toEqual({
      kind: 'error',
      message: "Unknown database 'other'",
      code: 'ER_BAD_DB_ERROR',
    });
    expect(await rowsOf('SHOW TABLES FROM SHOP_DB')).toHaveLength(3);
  });

  it('SHOW DATABASES: information_schema and the session database only', async () => {
    expect(await answer('SHOW DATABASES')).toMatchObject({
      columns: ['Database'],
      rows: [['information_schema'], ['shop_db']],
    });
    expect(await answer("SHOW DATABASES LIKE 'shop%'")).toMatchObject({
      columns: ['Database (shop%)'],
      rows: [['shop_db']],
    });
  });

  it('DESCRIBE: types, NULL, PRI for every key column, UNI, MUL, defaults and extras as MySQL 8', async () => {
    const rows = await rowsOf('DESCRIBE orders');
    expect(rows).toEqual([
      ['shop', 'int', 'NO', 'PRI', null, ''],
      ['number', 'int', 'NO', 'PRI', null, 'auto_increment'],
      ['code', 'varchar(10)', 'NO', 'UNI', 'none', ''],
      ['customer', 'int', 'YES', 'MUL', null, ''],
      ['placed', 'timestamp', 'NO', '', 'CURRENT_TIMESTAMP', 'DEFAULT_GENERATED'],
      ['total', 'decimal(10,2)', 'YES', 'MUL', '0.00', ''],
      ['note', 'text', 'YES', '', null, ''],
    ]);
    expect(await rowsOf('SHOW COLUMNS FROM Orders')).toEqual(rows);
    expect(await rowsOf("DESCRIBE orders 'c%'")).toEqual([rows[2], rows[3]]);
    expect(await rowsOf('DESCRIBE orders CODE')).toEqual([rows[2]]);
    expect(await rowsOf('DESCRIBE tags')).toEqual([
      ['label', 'varchar(20)', 'NO', 'PRI', null, ''],
      ['weight', 'double', 'YES', '', null, ''],
    ]);
  });

  it('SHOW FULL COLUMNS adds Collation (character columns only), Privileges and Comment', async () => {
    const rows = await rowsOf('SHOW FULL COLUMNS FROM orders');
    expect((await answer('SHOW FULL COLUMNS FROM orders')).kind === 'rows' && rows[0]).toEqual([
      'shop',
      'int',
      null,
      'NO',
      'PRI',
      null,
      '',
      'select,insert,update,references',
      '',
    ]);
    expect(rows.map((row) => row[2])).toEqual([
      null,
      null,
      'utf8mb4_general_ci',
      null,
      null,
      null,
      'utf8mb4_bin',
    ]);
  });

  it('SHOW INDEX: PRIMARY, then unique keys, then the rest (with the keys InnoDB adds for foreign keys)', async () => {
    const rows = await rowsOf('SHOW INDEX FROM orders');
    expect(rows.map((row) => [row[1], row[2], row[3], row[4], row[9]])).toEqual([
      [0n, 'PRIMARY', 1n, 'shop', ''],
      [0n, 'PRIMARY', 2n, 'number', ''],
      [0n, 'code', 1n, 'code', ''],
      [0n, 'pair', 1n, 'customer', 'YES'],
      [0n, 'pair', 2n, 'total', 'YES'],
      [1n, 'by_customer', 1n, 'customer', 'YES'],
      [1n, 'by_customer', 2n, 'placed', ''],
      [1n, 'total', 1n, 'total', 'YES'],
    ]);
    expect(rows[0]).toEqual([
      'orders',
      0n,
      'PRIMARY',
      1n,
      'shop',
      'A',
      null,
      null,
      null,
      '',
      'BTREE',
      '',
      '',
      'YES',
      null,
    ]);
  });

  it('SHOW CREATE TABLE: the engine’s MySQL text when it has one, else one written as MySQL 8 does', async () => {
    const written = await rowsOf('SHOW CREATE TABLE orders');
    expect(written).toEqual([
      [
        'orders',
        [
          'CREATE TABLE `orders` (',
          '  `shop` int NOT NULL,',
          '  `number` int NOT NULL AUTO_INCREMENT,',
          "  `code` varchar(10) NOT NULL DEFAULT 'none',",
          '  `customer` int DEFAULT NULL,',
          '  `placed` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,',
          "  `total` decimal(10,2) DEFAULT '0.00',",
          '  `note` text,',
          '  PRIMARY KEY (`shop`,`number`),',
          '  UNIQUE KEY `code` (`code`),',
          '  UNIQUE KEY `pair` (`customer`,`total`),',
          '  KEY `by_customer` (`customer`,`placed`),',
          '  KEY `total` (`total`),',
          '  CONSTRAINT `orders_shop` FOREIGN KEY (`shop`) REFERENCES `shops` (`id`),',
          '  FOREIGN KEY (`total`) REFERENCES `totals` (`value`)',
          ') ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_0900_ai_ci',
        ].join('\n'),
      ],
    ]);
    const own = catalogue([
      { ...TAGS, name: 'Tags', createSql: 'CREATE TABLE `Tags` (\n  `label` varchar(20)\n)' },
    ]);
    expect(await rowsOf('SHOW CREATE TABLE tags', {}, own)).toEqual([
      ['tags', 'CREATE TABLE `tags` (\n  `label` varchar(20)\n)'],
    ]);
    expect(await answer('SHOW CREATE TABLE big_orders')).toMatchObject({
      columns: ['View', 'Create View', 'character_set_client', 'collation_connection'],
      rows: [['big_orders', VIEW.createSql, 'utf8mb4', 'utf8mb4_0900_ai_ci']],
    });
  });

  it("answers a missing table with MySQL's error 1146 text, naming the database", async () => {
    const missing = {
      kind: 'error',
      message: "Table 'shop_db.nope' doesn't exist",
      code: 'ER_NO_SUCH_TABLE',
    };
    for (const sql of [
      'DESCRIBE nope',
      'SHOW COLUMNS FROM Nope',
      'SHOW CREATE TABLE nope',
      'SHOW INDEX FROM nope',
    ]) {
      expect(await answer(sql), sql).toEqual(missing);
    }
    expect(await answer('DESCRIBE other.orders')).toEqual({
      kind: 'error',
      message: "Table 'other.orders' doesn't exist",
      code: 'ER_NO_SUCH_TABLE',
    });
    expect(await answer('SHOW STATUS')).toMatchObject({ kind: 'error', code: 'ER_NOT_SUPPORTED_YET' });
  });
});

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
