import type { SqlLiteral } from './sql-literal.js';

/**
 * What a MySQL dump defines: databases, their tables (columns, keys) and rows, engine-neutral.
 * Every SQL engine builds its databases from this model; {@link parseMysqlDump} makes it.
 */
export interface DumpModel {
  /** SHA-256 (hex) of the dump text: the identity of the data, used to key caches of built databases. */
  readonly sha256: string;
  readonly databases: readonly DumpDatabase[];
  /** Statements and conditional comments the reader recognised as harmless and did not apply. */
  readonly skipped: readonly SkippedStatement[];
}

export interface DumpDatabase {
  readonly name: string;
  /** Default collation declared by `CREATE DATABASE` (e.g. `utf8mb4_general_ci`), when there is one. */
  readonly collation?: string;
  /** In dump order (so referenced tables may come after the tables that reference them). */
  readonly tables: readonly DumpTable[];
}

export interface DumpTable {
  readonly name: string;
  readonly columns: readonly DumpColumn[];
  /** Column names of the primary key, in key order (prefix lengths such as `(255)` dropped). */
  readonly primaryKey: readonly string[];
  readonly foreignKeys: readonly DumpForeignKey[];
  /** Secondary indexes (`KEY`, `UNIQUE KEY`, `INDEX`, `FULLTEXT KEY`). */
  readonly indexes: readonly DumpIndex[];
  /** Table default collation (`COLLATE=…`), when declared. */
  readonly collation?: string;
  /** One entry per column, in column order, for every row of every `INSERT` into the table. */
  readonly rows: readonly (readonly SqlLiteral[])[];
  /** The `CREATE TABLE` statement as the dump wrote it (without the `DROP`/`SET` around it). */
  readonly createSql: string;
  /** 1-based line of the `CREATE TABLE` in the dump. */
  readonly line: number;
}

export interface DumpColumn {
  readonly name: string;
  /**
   * The MySQL type, normalised: lower case, no blanks, no display width on integer types
   * (`int`, `bigint unsigned`, `double`, `float(10,2)`, `decimal(19,4)`, `varchar(255)`, `char(3)`,
   * `text`, `datetime`, `date`, `timestamp`, `enum('a','b')`).
   */
  readonly mysqlType: string;
  readonly notNull: boolean;
  /** The `DEFAULT` clause: a literal, or an expression such as `CURRENT_TIMESTAMP` (text as written). */
  readonly default?: SqlLiteral | { readonly kind: 'expression'; readonly text: string };
  readonly autoIncrement: boolean;
  /** `COLLATE …` of the column, when declared. */
  readonly collation?: string;
}

export interface DumpForeignKey {
  /** Constraint name, when the dump gives one. */
  readonly name?: string;
  readonly columns: readonly string[];
  readonly refTable: string;
  readonly refColumns: readonly string[];
}

export interface DumpIndex {
  readonly name?: string;
  readonly columns: readonly string[];
  readonly unique: boolean;
}

/**
 * A statement or conditional comment the reader did not apply, with what it would have done:
 * session settings (`SET NAMES`, `SET FOREIGN_KEY_CHECKS=0`, `SET SQL_MODE='NO_AUTO_VALUE_ON_ZERO'`),
 * table locks, `ALTER TABLE … DISABLE KEYS`, user and privilege statements.
 */
export interface SkippedStatement {
  readonly line: number;
  /** `SET`, `LOCK TABLES`, `UNLOCK TABLES`, `ALTER TABLE … KEYS`, `CREATE USER`, `GRANT`, `FLUSH`, … */
  readonly kind: string;
  readonly text: string;
}
