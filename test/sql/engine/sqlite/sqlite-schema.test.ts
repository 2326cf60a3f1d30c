import { describe, expect, it } from 'vitest';
import type { DumpColumn } from '../../../../src/sql/dump/dump-model.js';
import { parseMysqlDump } from '../../../../src/sql/dump/parse-mysql-dump.js';
import {
  sqliteAffinity,
  sqliteColumnType,
  sqliteCreateIndexes,
  sqliteCreateTable,
  sqliteValue,
} from '../../../../src/sql/engine/sqlite/sqlite-schema.js';
import { MIRROR_PRESENT, mirrorDump, SPIDER_DUMP, WIKISQL_DUMP } from '../../../envs/sql/sql-fixtures.js';

function column(mysqlType: string, collation?: string): DumpColumn {
  return { name: 'c', mysqlType, notNull: false, autoIncrement: false, ...(collation ? { collation } : {}) };
}

describe('sqliteColumnType', () => {
  it.each([
    ['int', 'INTEGER', 'INTEGER', false],
    ['bigint unsigned', 'INTEGER', 'INTEGER', false],
    ['double', 'double', 'REAL', false],
    ['float(10,2)', 'float(10,2)', 'REAL', false],
    ['decimal(19,4)', 'REAL', 'REAL', false],
    ['varchar(255)', 'varchar(255)', 'TEXT', true],
    ['char(3)', 'char(3)', 'TEXT', true],
    ['text', 'text', 'TEXT', true],
    ['tinytext', 'tinytext', 'TEXT', true],
    ["enum('a','b')", 'TEXT', 'TEXT', true],
    ['datetime', 'TEXT', 'TEXT', false],
    ['date', 'TEXT', 'TEXT', false],
    ['timestamp', 'TEXT', 'TEXT', false],
    ['blob', 'BLOB', 'BLOB', false],
  ])('%s → %s (%s affinity, nocase %s)', (mysqlType, declared, affinity, nocase) => {
    const type = sqliteColumnType(column(mysqlType));
    expect(type).toEqual({ declared, affinity, nocase });
    expect(sqliteAffinity(type.declared)).toBe(affinity);
  });

  it('keeps binary collations case-sensitive', () => {
    expect(sqliteColumnType(column('varchar(5)', 'utf8mb4_bin')).nocase).toBe(false);
    expect(sqliteColumnType(column('varchar(5)'), 'utf8mb4_0900_as_cs').nocase).toBe(false);
    expect(sqliteColumnType(column('varchar(5)', 'utf8mb4_general_ci'), 'utf8mb4_bin').nocase).toBe(true);
  });

  it('refuses a type it does not know', () => {
    expect(() => sqliteColumnType(column('geometry'))).toThrow(/no SQLite type for MySQL type geometry/);
  });

  it.skipIf(!MIRROR_PRESENT)('gives every column of the upstream dumps the affinity it means', () => {
    for (const dump of [mirrorDump(SPIDER_DUMP), mirrorDump(WIKISQL_DUMP)]) {
      for (const table of dump.databases.flatMap((d) => d.tables)) {
        for (const c of table.columns) {
          const type = sqliteColumnType(c, table.collation);
          expect(sqliteAffinity(type.declared), `${table.name}.${c.name}`).toBe(type.affinity);
        }
      }
    }
  });
});

describe('sqliteCreateTable', () => {
  it('writes columns, defaults, collations, keys and indexes', () => {
    const model = parseMysqlDump(`CREATE DATABASE d; USE d;
CREATE TABLE \`visit\` (
  \`id\` int NOT NULL AUTO_INCREMENT,
  \`Name "x"\` text COLLATE utf8mb4_general_ci,
  \`spent\` decimal(10,2) NOT NULL DEFAULT '0.00',
  \`at\` timestamp NOT NULL DEFAULT CURRENT_TIMESTAMP,
  \`code\` varchar(5) COLLATE utf8mb4_bin DEFAULT 'it''s',
  PRIMARY KEY (\`id\`),
  UNIQUE KEY \`u\` (\`code\`),
  KEY (\`spent\`),
  CONSTRAINT \`f\` FOREIGN KEY (\`code\`) REFERENCES \`other\` (\`code\`)
) ENGINE=InnoDB DEFAULT CHARSET=utf8mb4 COLLATE=utf8mb4_general_ci;`);
    const table = model.databases[0]!.tables[0]!;
    expect(sqliteCreateTable(table)).toBe(
      [
        'CREATE TABLE "visit" (',
        '  "id" INTEGER NOT NULL,',
        '  "Name ""x""" text COLLATE NOCASE,',
        `  "spent" REAL NOT NULL DEFAULT '0.00',`,
        '  "at" TEXT NOT NULL DEFAULT CURRENT_TIMESTAMP,',
        `  "code" varchar(5) DEFAULT 'it''s',`,
        '  PRIMARY KEY ("id"),',
        '  FOREIGN KEY ("code") REFERENCES "other" ("code")',
        ')',
      ].join('\n'),
    );
    expect(sqliteCreateIndexes(table)).toEqual([
      'CREATE UNIQUE INDEX "visit__u" ON "visit" ("code")',
      'CREATE INDEX "visit__key2" ON "visit" ("spent")',
    ]);
  });

  it('binds literals as exact JS values', () => {
    const integer = sqliteColumnType(column('int'));
    const real = sqliteColumnType(column('double'));
    const text = sqliteColumnType(column('text'));
    expect(sqliteValue({ kind: 'integer', text: '9007199254740993' }, integer)).toBe(9007199254740993n);
    expect(sqliteValue({ kind: 'decimal', text: '78.4' }, real)).toBe(78.4);
    expect(sqliteValue({ kind: 'decimal', text: '1.50' }, text)).toBe('1.50');
    expect(sqliteValue({ kind: 'string', value: "O'Reilly" }, text)).toBe("O'Reilly");
    expect(sqliteValue({ kind: 'null' }, text)).toBeNull();
    expect(sqliteValue({ kind: 'bytes', hex: '00FF' }, text)).toEqual(Buffer.from([0, 255]));
  });
});
