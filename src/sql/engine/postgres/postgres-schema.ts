import type { DumpColumn, DumpDatabase, DumpTable } from '../../dump/dump-model.js';
import type { SqlLiteral } from '../../dump/sql-literal.js';
import { type DefaultForms, defaultClause } from '../column-default.js';
import { objectName } from '../object-name.js';
import { sqlBatches } from '../sql-batches.js';
import { SqlEngineError } from '../sql-engine-error.js';

/**
 * Version of the MySQL → PostgreSQL conversion below. Bump it whenever the DDL or the value
 * conversion changes: it is part of the template databases' names on a server given by `--db-url`.
 */
export const POSTGRES_CONVERTER_VERSION = 2;

/** How text columns compare. */
export type PostgresTextMode = 'citext' | 'text';

/** A quoted PostgreSQL identifier. */
export function pgName(name: string): string {
  return `"${name.replaceAll('"', '""')}"`;
}

/** A PostgreSQL string literal (standard-conforming: quotes doubled). */
export function pgString(text: string): string {
  return `'${text.replaceAll("'", "''")}'`;
}

/**
 * The name a MySQL identifier gets in PostgreSQL: lower case. PostgreSQL folds unquoted names to
 * lower case while MySQL compares table and column names case-insensitively (upstream ran with
 * `lower_case_table_names=1`), so lower-case names make `SELECT Name FROM Singer` work as it did
 * upstream; only a quoted mixed-case name (`"Name"`) fails.
 */
export function pgIdentifier(name: string): string {
  return name.toLowerCase();
}

/** The kind of value a column holds, which decides how dump literals are written. */
type ValueKind = 'integer' | 'exact' | 'float' | 'text' | 'bytes' | 'bits' | 'temporal' | 'json';

interface PgColumnType {
  readonly sql: string;
  readonly kind: ValueKind;
}

const INTEGER = /^(tinyint|smallint|mediumint|int|bigint)(\(\d+\))?( unsigned)?( zerofill)?$/;

/** A case-sensitive MySQL collation (`utf8mb4_bin`, `…_cs`, `…_as_cs`). */
function binaryCollation(collation: string | undefined): boolean {
  return collation !== undefined && /(_bin|_cs)$/i.test(collation);
}

/**
 * The PostgreSQL type of a MySQL column:
 * - `tinyint`/`smallint`/`year` → `smallint` (unsigned `smallint` → `integer`), `mediumint`/`int` →
 *   `integer` (unsigned `int` → `bigint`), `bigint` → `bigint` (unsigned → `numeric(20)`);
 * - `float` → `real`, `double` → `double precision`, `decimal(p,s)` → `numeric(p,s)`;
 * - character types, `enum`, `set` → `citext` (compared case-insensitively, as MySQL's
 *   `utf8mb4_general_ci`; lengths are not enforced) when the extension is there and the column's
 *   collation is not binary, else `text` (case-sensitive);
 * - `date` → `date`, `datetime(n)`/`timestamp(n)` → `timestamp(n)` (no time zone, second precision
 *   by default as in MySQL), `time` → `interval` (MySQL's TIME is a duration up to 838 hours; Python
 *   gets a `timedelta` either way);
 * - `json` → `json`, binary types → `bytea`, `bit(n)` → `bigint`.
 */
export function pgColumnType(
  column: DumpColumn,
  text: PostgresTextMode,
  tableCollation?: string,
): PgColumnType {
  const type = column.mysqlType;
  const integer = INTEGER.exec(type);
  if (integer || type === 'tinyint(1)') {
    const base = integer?.[1] ?? 'tinyint';
    const unsigned = integer?.[3] !== undefined;
    const sql =
      base === 'bigint'
        ? unsigned && !column.autoIncrement
          ? 'numeric(20)'
          : 'bigint'
        : base === 'int'
          ? unsigned
            ? 'bigint'
            : 'integer'
          : base === 'mediumint'
            ? 'integer'
            : base === 'smallint' && unsigned
              ? 'integer'
              : 'smallint';
    return { sql, kind: sql === 'numeric(20)' ? 'exact' : 'integer' };
  }
  if (/^year\b/.test(type)) return { sql: 'smallint', kind: 'integer' };
  if (/^bit\b/.test(type)) return { sql: 'bigint', kind: 'bits' };
  if (/^double\b/.test(type)) return { sql: 'double precision', kind: 'float' };
  if (/^float\b/.test(type)) {
    const precision = /^float\((\d+)\)/.exec(type);
    return { sql: precision && Number(precision[1]) > 24 ? 'double precision' : 'real', kind: 'float' };
  }
  const decimal = /^decimal\((\d+),(\d+)\)/.exec(type);
  if (decimal) return { sql: `numeric(${decimal[1]},${decimal[2]})`, kind: 'exact' };
  if (/^(char|varchar|tinytext|text|mediumtext|longtext|national \w+|long varchar|enum|set)\b/.test(type)) {
    const folded = text === 'citext' && !binaryCollation(column.collation ?? tableCollation);
    return { sql: folded ? 'citext' : 'text', kind: 'text' };
  }
  if (type === 'date') return { sql: 'date', kind: 'temporal' };
  const stamp = /^(datetime|timestamp)(\((\d)\))?/.exec(type);
  if (stamp) return { sql: `timestamp(${stamp[3] ?? '0'})`, kind: 'temporal' };
  if (/^time\b/.test(type)) return { sql: 'interval', kind: 'temporal' };
  if (type === 'json') return { sql: 'json', kind: 'json' };
  if (/^(binary|varbinary|tinyblob|blob|mediumblob|longblob)\b/.test(type))
    return { sql: 'bytea', kind: 'bytes' };
  throw new SqlEngineError(
    'SQL_ENGINE_FAILED',
    `no PostgreSQL type for MySQL type ${type} (column ${column.name})`,
  );
}

/** MySQL's zero dates, which PostgreSQL rejects; `mysql.connector` returned them as `None`. */
const ZERO_DATE = /^0000-00-00/;

/** A dump literal as PostgreSQL SQL for a column of this kind. */
export function pgValue(literal: SqlLiteral, kind: ValueKind): string {
  switch (literal.kind) {
    case 'null':
      return 'NULL';
    case 'integer':
    case 'decimal':
    case 'float':
      return kind === 'text' || kind === 'temporal' || kind === 'json'
        ? pgString(literal.text)
        : literal.text;
    case 'string':
      if (kind === 'temporal' && ZERO_DATE.test(literal.value)) return 'NULL';
      if (kind === 'bytes') return `'\\x${Buffer.from(literal.value, 'utf8').toString('hex')}'::bytea`;
      if (kind === 'bits')
        return BigInt(`0x${Buffer.from(literal.value, 'latin1').toString('hex') || '0'}`).toString();
      if ((kind === 'integer' || kind === 'exact' || kind === 'float') && literal.value.trim() === '')
        return '0';
      return pgString(literal.value.replaceAll('\0', ''));
    case 'bytes':
      if (kind === 'bytes') return `'\\x${literal.hex}'::bytea`;
      if (kind === 'bits' || kind === 'integer') return BigInt(`0x${literal.hex || '0'}`).toString();
      return `convert_from('\\x${literal.hex}'::bytea, 'UTF8')`;
  }
}

/** Column defaults in PostgreSQL for a column of this kind. */
function defaultForms(kind: ValueKind): DefaultForms {
  return { engine: 'PostgreSQL', now: 'LOCALTIMESTAMP(0)', literal: (value) => pgValue(value, kind) };
}

/** One table converted: its DDL (table, then indexes), its rows, and its foreign keys (added last). */
export interface PgTable {
  readonly name: string;
  readonly create: string;
  readonly indexes: readonly string[];
  readonly inserts: readonly string[];
  /** `ALTER TABLE … ADD CONSTRAINT … FOREIGN KEY … NOT VALID`, one per key (some may not apply). */
  readonly foreignKeys: readonly string[];
  /**
   * `SELECT setval(…)` statements that put identity sequences where MySQL's AUTO_INCREMENT counter
   * was: the dump's `AUTO_INCREMENT=` value, or past the loaded rows.
   */
  readonly sequences: readonly string[];
}

/** A name for an index or constraint, unique within the database, at most 63 bytes. */
function constraintName(table: string, name: string): string {
  return objectName([table, name], 63);
}

/**
 * Converts one dump table: `CREATE TABLE` with lower-case names, identity columns for
 * AUTO_INCREMENT (`GENERATED BY DEFAULT AS IDENTITY`, moved past the loaded rows), the primary
 * key, unique and plain indexes, multi-row INSERTs, and foreign keys added `NOT VALID` after the
 * rows (the dump's data does not always satisfy them; new rows are checked).
 */
export function pgTable(table: DumpTable, text: PostgresTextMode, maxInsertBytes = 1_000_000): PgTable {
  const name = pgIdentifier(table.name);
  const types = table.columns.map((column) => pgColumnType(column, text, table.collation));
  const parts = table.columns.map((column, i) => {
    const type = types[i]!;
    const identity =
      column.autoIncrement && type.kind === 'integer' ? ' GENERATED BY DEFAULT AS IDENTITY' : '';
    const notNull = column.notNull ? ' NOT NULL' : '';
    const fallback = identity ? '' : defaultClause(table, column, defaultForms(type.kind));
    return `${pgName(pgIdentifier(column.name))} ${type.sql}${identity}${notNull}${fallback}`;
  });
  if (table.primaryKey.length > 0) {
    parts.push(`PRIMARY KEY (${table.primaryKey.map((column) => pgName(pgIdentifier(column))).join(', ')})`);
  }
  const create = `CREATE TABLE ${pgName(name)} (\n  ${parts.join(',\n  ')}\n)`;
  const indexes = table.indexes.map((index, i) => {
    const indexName = constraintName(name, index.name ?? `key${i + 1}`);
    const columns = index.columns.map((column) => pgName(pgIdentifier(column))).join(', ');
    return `CREATE ${index.unique ? 'UNIQUE ' : ''}INDEX ${pgName(indexName)} ON ${pgName(name)} (${columns})`;
  });
  const tuples = table.rows.map(
    (row) => `(${row.map((literal, c) => pgValue(literal, types[c]!.kind)).join(',')})`,
  );
  const inserts = sqlBatches(tuples, ',', maxInsertBytes, `INSERT INTO ${pgName(name)} VALUES `);
  const foreignKeys = table.foreignKeys.map((key, i) => {
    const keyName = constraintName(name, key.name ?? `fk${i + 1}`);
    const columns = key.columns.map((column) => pgName(pgIdentifier(column))).join(', ');
    const refColumns = key.refColumns.map((column) => pgName(pgIdentifier(column))).join(', ');
    return `ALTER TABLE ${pgName(name)} ADD CONSTRAINT ${pgName(keyName)} FOREIGN KEY (${columns}) REFERENCES ${pgName(pgIdentifier(key.refTable))} (${refColumns}) NOT VALID`;
  });
  const counter = Number(
    /\bAUTO_INCREMENT\s*=\s*(\d+)/i.exec(table.createSql.slice(table.createSql.lastIndexOf(')')))?.[1] ?? 1,
  );
  const sequences = table.columns
    .filter((column, i) => column.autoIncrement && types[i]!.kind === 'integer')
    .map((column) => {
      const col = pgName(pgIdentifier(column.name));
      const next = `GREATEST(COALESCE((SELECT max(${col}) FROM ${pgName(name)}), 0) + 1, ${counter})`;
      return `SELECT setval(pg_get_serial_sequence(${pgString(pgName(name))}, ${pgString(pgIdentifier(column.name))}), ${next}, false)`;
    });
  return { name, create, indexes, inserts, foreignKeys, sequences };
}

/** Every table of a dump database, converted. */
export function pgDatabase(database: DumpDatabase, text: PostgresTextMode): PgTable[] {
  return database.tables.map((table) => pgTable(table, text));
}
