import type { DumpColumn, DumpTable } from '../../dump/dump-model.js';
import { literalToSql, type SqlLiteral } from '../../dump/sql-literal.js';
import { type DefaultForms, defaultClause } from '../column-default.js';
import { SqlEngineError } from '../sql-engine-error.js';

/**
 * Version of the MySQL → SQLite conversion below. Bump it whenever the DDL or the value conversion
 * changes: it is part of the cache key of the built database files.
 */
export const SQLITE_CONVERTER_VERSION = 1;

/** SQLite's column affinities. */
export type SqliteAffinity = 'INTEGER' | 'REAL' | 'TEXT' | 'BLOB' | 'NUMERIC';

/** How one MySQL column becomes a SQLite column. */
export interface SqliteColumnType {
  /** The declared type: the MySQL name where SQLite derives the wanted affinity from it, else the affinity. */
  readonly declared: string;
  readonly affinity: SqliteAffinity;
  /** Text compared case-insensitively (`COLLATE NOCASE`), as MySQL's default `utf8mb4_general_ci`. */
  readonly nocase: boolean;
}

/** SQLite's rules (section 3.1 of its datatype page) for the affinity of a declared type. */
export function sqliteAffinity(declared: string): SqliteAffinity {
  const type = declared.toUpperCase();
  if (type.includes('INT')) return 'INTEGER';
  if (type.includes('CHAR') || type.includes('CLOB') || type.includes('TEXT')) return 'TEXT';
  if (type.includes('BLOB') || type === '') return 'BLOB';
  if (type.includes('REAL') || type.includes('FLOA') || type.includes('DOUB')) return 'REAL';
  return 'NUMERIC';
}

const INTEGERS = /^(tinyint|smallint|mediumint|int|bigint|year|bit)\b/;
const FLOATS = /^(float|double)\b/;
const DECIMALS = /^decimal\b/;
const STRINGS = /^(char|varchar|tinytext|text|mediumtext|longtext|national \w+|long varchar)\b/;
const CHOICES = /^(enum|set|json)\b/;
const TEMPORALS = /^(date|datetime|timestamp|time)\b/;
const BINARIES = /^(binary|varbinary|tinyblob|blob|mediumblob|longblob)\b/;

/** A case-sensitive collation (`utf8mb4_bin`, `…_cs`, `…_0900_as_cs`): comparisons stay binary. */
function binaryCollation(collation: string | undefined): boolean {
  return collation !== undefined && /(_bin|_cs)$/i.test(collation);
}

/**
 * The SQLite type of a MySQL column. Integers are `INTEGER` (so that a single-column integer primary
 * key is SQLite's rowid and AUTO_INCREMENT works by inserting NULL); `float`/`double` keep their
 * name (REAL affinity); `decimal` becomes `REAL` (SQLite has no fixed point: `12.5000` reads back as
 * 12.5); character types keep their name (TEXT affinity) with `COLLATE NOCASE` unless the column's
 * collation is binary; `enum`/`set`/`json` become `TEXT`; temporal types become `TEXT` holding the
 * dump's ISO text (`2017-09-03 08:43:56`), which sorts chronologically and which SQLite's date
 * functions read; binary types become `BLOB`.
 */
export function sqliteColumnType(column: DumpColumn, tableCollation?: string): SqliteColumnType {
  const type = column.mysqlType;
  const nocase = !binaryCollation(column.collation ?? tableCollation);
  if (INTEGERS.test(type)) return { declared: 'INTEGER', affinity: 'INTEGER', nocase: false };
  if (FLOATS.test(type)) return { declared: type, affinity: 'REAL', nocase: false };
  if (DECIMALS.test(type)) return { declared: 'REAL', affinity: 'REAL', nocase: false };
  if (STRINGS.test(type)) return { declared: type, affinity: 'TEXT', nocase };
  if (CHOICES.test(type)) return { declared: 'TEXT', affinity: 'TEXT', nocase };
  if (TEMPORALS.test(type)) return { declared: 'TEXT', affinity: 'TEXT', nocase: false };
  if (BINARIES.test(type)) return { declared: 'BLOB', affinity: 'BLOB', nocase: false };
  throw new SqlEngineError(
    'SQL_ENGINE_FAILED',
    `no SQLite type for MySQL type ${type} (column ${column.name})`,
  );
}

/** A quoted SQLite identifier. */
export function sqliteName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

function names(columns: readonly string[]): string {
  return columns.map(sqliteName).join(', ');
}

/** Column defaults in SQLite: MySQL's current time is `CURRENT_TIMESTAMP` (UTC, same format). */
const DEFAULTS: DefaultForms = {
  engine: 'SQLite',
  now: 'CURRENT_TIMESTAMP',
  literal: (value) => literalToSql(value, 'sqlite'),
};

/**
 * `CREATE TABLE` for SQLite: columns (type, NOT NULL, DEFAULT, collation), the primary key, and the
 * foreign keys (declared, so that `PRAGMA foreign_key_list` shows them; sessions do not enforce them,
 * because the dump's data does not always satisfy them).
 */
export function sqliteCreateTable(table: DumpTable): string {
  const parts = table.columns.map((column) => {
    const type = sqliteColumnType(column, table.collation);
    const notNull = column.notNull ? ' NOT NULL' : '';
    const collate = type.nocase ? ' COLLATE NOCASE' : '';
    return `${sqliteName(column.name)} ${type.declared}${notNull}${defaultClause(table, column, DEFAULTS)}${collate}`;
  });
  if (table.primaryKey.length > 0) parts.push(`PRIMARY KEY (${names(table.primaryKey)})`);
  for (const key of table.foreignKeys) {
    parts.push(
      `FOREIGN KEY (${names(key.columns)}) REFERENCES ${sqliteName(key.refTable)} (${names(key.refColumns)})`,
    );
  }
  return `CREATE TABLE ${sqliteName(table.name)} (\n  ${parts.join(',\n  ')}\n)`;
}

/** `CREATE [UNIQUE] INDEX` for the table's secondary keys (index names made unique per database). */
export function sqliteCreateIndexes(table: DumpTable): string[] {
  return table.indexes.map((index, i) => {
    const name = `${table.name}__${index.name ?? `key${i + 1}`}`;
    const unique = index.unique ? 'UNIQUE ' : '';
    return `CREATE ${unique}INDEX ${sqliteName(name)} ON ${sqliteName(table.name)} (${names(index.columns)})`;
  });
}

/**
 * The JS value to bind for a dump literal in a column: integers as `bigint` (exact beyond 2^53),
 * decimals and floats as `number` (into a text column: the literal's text, as MySQL would store it),
 * strings as written, bytes as a `Buffer`. SQLite's column affinity does the rest (`'0.00'` into a
 * REAL column is 0).
 */
export function sqliteValue(
  literal: SqlLiteral,
  type: SqliteColumnType,
): bigint | number | string | Buffer | null {
  switch (literal.kind) {
    case 'null':
      return null;
    case 'integer':
      return type.affinity === 'TEXT' ? literal.text : BigInt(literal.text);
    case 'decimal':
    case 'float':
      return type.affinity === 'TEXT' ? literal.text : Number(literal.text);
    case 'string':
      return literal.value;
    case 'bytes':
      return Buffer.from(literal.hex, 'hex');
  }
}
