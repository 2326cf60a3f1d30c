/**
 * MySQL-style introspection (`SHOW TABLES`, `DESCRIBE t`, …): recognition from tokens and answers
 * from a hand-made catalogue (the SQLite engine's answers: `sqlite-as-mysql.test.ts`).
 */
import { describe, expect, it } from 'vitest';
import type { DumpColumn } from '../../../src/sql/dump/dump-model.js';
import { splitStatements } from '../../../src/sql/dump/split-statements.js';
import {
  answerMysqlIntrospection,
  type IntrospectionOutcome,
} from '../../../src/sql/introspection/answer-mysql-introspection.js';
import type { MysqlCatalogue, TableDescription } from '../../../src/sql/introspection/mysql-catalogue.js';
import { likePattern } from '../../../src/sql/introspection/mysql-like-pattern.js';
import { recognizeMysqlIntrospection } from '../../../src/sql/introspection/recognize-mysql-introspection.js';

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
