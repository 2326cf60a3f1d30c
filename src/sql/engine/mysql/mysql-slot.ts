/** One session copy of a database on the server: its database, its account, where it comes from. */
export interface MysqlSlot {
  /** The copy's database name on the server. */
  readonly database: string;
  readonly user: string;
  readonly password: string;
  /** The copy's reader account (`SELECT`, `SHOW VIEW` on the copy only): the reference connection's. */
  readonly reader: { readonly user: string; readonly password: string };
  /** The template database it is rebuilt from. */
  readonly template: string;
  /** The dump's tables, in dump order. */
  readonly tables: readonly MysqlSlotTable[];
  readonly collation: string;
  /** AUTO_INCREMENT counters of the pristine copy, by lower-case table name. */
  autoIncrements: Map<string, string>;
  /** The copy may differ from the template (rebuilt before the next session uses it). */
  dirty: boolean;
}

/** A table of the dump, as a copy rebuilds it. */
export interface MysqlSlotTable {
  readonly name: string;
  /** Its `CREATE TABLE`. */
  readonly ddl: string;
  /** Lower-case names of the dump's tables whose foreign keys reference it. */
  readonly children: readonly string[];
}
