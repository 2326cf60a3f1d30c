import type { DumpColumn, DumpForeignKey, DumpIndex } from '../dump/dump-model.js';

/*
 * The engine side of MySQL-style introspection (see `docs/architecture/sql-engines.md`): what an
 * engine that is not MySQL tells about its session's database so that `SHOW TABLES`, `DESCRIBE t`
 * and the like can be answered the way MySQL 8 answers them.
 */

/** A table or view as the catalogue lists it. */
export interface CatalogueTable {
  readonly name: string;
  readonly kind: 'table' | 'view';
}

/** What introspection needs of one table: the dump model's shape (a `DumpTable` fits as is). */
export interface TableDescription {
  /** The name as the engine stores it. */
  readonly name: string;
  readonly kind?: 'table' | 'view';
  /** Columns in order, each with its MySQL type (normalised as `DumpColumn.mysqlType`). */
  readonly columns: readonly DumpColumn[];
  readonly primaryKey: readonly string[];
  readonly indexes: readonly DumpIndex[];
  readonly foreignKeys: readonly DumpForeignKey[];
  /** Table default collation. */
  readonly collation?: string;
  /**
   * MySQL's own `CREATE TABLE` text for the table, when the engine has it (the dump's, for a table
   * unchanged since); otherwise `SHOW CREATE TABLE` writes one from the description. For a view,
   * the engine's `CREATE VIEW` text.
   */
  readonly createSql?: string;
}

/**
 * The engine side of introspection: what the session's database holds now (tables the agent
 * created or changed included).
 */
export interface MysqlCatalogue {
  /** The session's database, as the dump spells it. */
  readonly database: string;
  /** The database's default collation (`CREATE DATABASE … COLLATE`), when known. */
  readonly databaseCollation?: string;
  /** Every table and view of the database, in any order. */
  listTables(): Promise<readonly CatalogueTable[]>;
  /** One table or view, its name matched case-insensitively; undefined when there is none. */
  describeTable(name: string): Promise<TableDescription | undefined>;
}
