import type { DumpColumn, DumpDatabase, DumpTable } from '../dump/dump-model.js';
import type { CatalogueTable, MysqlCatalogue, TableDescription } from './mysql-catalogue.js';

/** What a session's catalogue knows of its pristine database: each dump table and what the engine built of it. */
export interface PristineSchema<Built> {
  readonly database: string;
  readonly collation?: string;
  /** By lower-cased table name. */
  readonly tables: ReadonlyMap<string, { readonly table: DumpTable } & Built>;
}

/**
 * The pristine schema of a dump database: each table with what `built` says the engine made of it
 * (the engine's schema text, its column types), to tell later whether the session changed it.
 */
export function pristineSchema<Built>(
  database: DumpDatabase,
  built: (table: DumpTable) => Built,
): PristineSchema<Built> {
  const tables = new Map<string, { readonly table: DumpTable } & Built>();
  for (const table of database.tables) tables.set(table.name.toLowerCase(), { table, ...built(table) });
  return {
    database: database.name,
    ...(database.collation !== undefined ? { collation: database.collation } : {}),
    tables,
  };
}

/** A view as introspection describes it: its columns and its `CREATE VIEW` text, no keys. */
export function viewDescription(name: string, columns: DumpColumn[], createSql: string): TableDescription {
  return { name, kind: 'view', columns, primaryKey: [], indexes: [], foreignKeys: [], createSql };
}

/**
 * An engine's side of MySQL introspection for one session: what the session's database holds now,
 * read with read-only queries (`run`) on the session's own connection, and the pristine schema, so
 * that a dump table the session did not change is described from the dump model (MySQL types,
 * defaults, AUTO_INCREMENT, keys and the dump's own `CREATE TABLE`).
 */
export abstract class PristineCatalogue<Built> implements MysqlCatalogue {
  readonly database: string;
  readonly databaseCollation?: string;

  constructor(
    protected readonly pristine: PristineSchema<Built>,
    /** Runs one read-only query for the session and returns its rows. */
    protected readonly run: (sql: string) => Promise<unknown[][]>,
  ) {
    this.database = pristine.database;
    if (pristine.collation !== undefined) this.databaseCollation = pristine.collation;
  }

  abstract listTables(): Promise<readonly CatalogueTable[]>;
  abstract describeTable(name: string): Promise<TableDescription | undefined>;
}
