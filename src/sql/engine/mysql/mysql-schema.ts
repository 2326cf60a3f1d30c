import type { DumpDatabase, DumpTable } from '../../dump/dump-model.js';
import { literalToSql } from '../../dump/sql-literal.js';
import { sqlBatches } from '../sql-batches.js';

/**
 * Version of the dump → MySQL/MariaDB loading below. Bump it whenever the DDL or the row loading
 * changes: it is part of the name of the template databases kept on a server given by `--db-url`.
 */
export const MYSQL_CONVERTER_VERSION = 1;

/** The server flavour: MariaDB and MySQL differ in a few names (collations). */
export type MysqlFlavor = 'mariadb' | 'mysql';

/** Upstream's default collation (the Spider and WikiSQL dumps use it throughout). */
export const DEFAULT_COLLATION = 'utf8mb4_general_ci';

/** A quoted MySQL identifier. */
export function mysqlName(name: string): string {
  return `\`${name.replaceAll('`', '``')}\``;
}

/** A MySQL string literal (quotes and backslashes escaped). */
export function mysqlString(text: string): string {
  return `'${text.replaceAll('\\', '\\\\').replaceAll("'", "''")}'`;
}

/**
 * A collation the server knows. MySQL 8's `utf8mb4_0900_*` collations do not exist in MariaDB
 * before 11.4: the accent- and case-insensitive ones become `utf8mb4_unicode_520_ci` (the nearest
 * UCA collation; `_ai_ci` comparisons stay insensitive to case and accents), the binary and
 * case-sensitive ones `utf8mb4_bin`.
 */
export function serverCollation(collation: string, flavor: MysqlFlavor): string {
  if (flavor === 'mysql' || !/^utf8mb4_0900_/i.test(collation)) return collation;
  return /_(bin|as_cs|cs)$/i.test(collation) ? 'utf8mb4_bin' : 'utf8mb4_unicode_520_ci';
}

/** The database's default collation, as declared by the dump (or upstream's default). */
export function databaseCollation(database: DumpDatabase, flavor: MysqlFlavor): string {
  return serverCollation(database.collation ?? DEFAULT_COLLATION, flavor);
}

/**
 * The dump's own `CREATE TABLE`, run as written so that the table is exactly upstream's (types,
 * display widths, key prefix lengths such as `(255)` on a TEXT key, `AUTO_INCREMENT=` counters,
 * collations, constraint names), with two changes: the storage engine is InnoDB whatever the dump
 * says (transactions are what resets a session cheaply), and on MariaDB MySQL-8-only collations
 * are mapped (see {@link serverCollation}).
 */
export function mysqlCreateTable(table: DumpTable, flavor: MysqlFlavor): string {
  return table.createSql
    .replace(/\bENGINE\s*=\s*\w+/i, 'ENGINE=InnoDB')
    .replace(/\butf8mb4_0900_\w+/gi, (collation) => serverCollation(collation, flavor));
}

/** Multi-row `INSERT`s of the table's rows, each at most about `maxBytes` long. */
export function mysqlInserts(table: DumpTable, maxBytes = 1_000_000): string[] {
  const tuples = table.rows.map(
    (row) => `(${row.map((literal) => literalToSql(literal, 'mysql')).join(',')})`,
  );
  return sqlBatches(tuples, ',', maxBytes, `INSERT INTO ${mysqlName(table.name)} VALUES `);
}

/** The SQL that creates one database's tables in the current database (FK checks off by the caller). */
export function mysqlTablesDdl(database: DumpDatabase, flavor: MysqlFlavor): string[] {
  return database.tables.map((table) => mysqlCreateTable(table, flavor));
}
