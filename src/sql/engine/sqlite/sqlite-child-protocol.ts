/** Requests to a SQLite session process (see `SQLITE_CHILD_SOURCE`); `id` pairs a reply with its request. */
export type SqliteChildRequest =
  /** Load the pristine image from a database file and open a copy of it. */
  | { readonly op: 'open'; readonly file: string }
  /** Replace the working copy with a fresh copy of the pristine image. */
  | { readonly op: 'reset' }
  /**
   * Run one statement; rows past `maxRows` are counted up to `countLimit`. `reference`: the
   * statement must only read (SQLite's `sqlite3_stmt_readonly`), else it is refused unrun.
   */
  | {
      readonly op: 'query';
      readonly sql: string;
      readonly maxRows: number;
      readonly countLimit: number;
      readonly reference?: boolean;
    }
  /** Run statements that succeeded before, in order, stopping at the first error. */
  | { readonly op: 'replay'; readonly statements: readonly string[] };

/** Replies of a SQLite session process. */
export type SqliteChildReply =
  | {
      readonly kind: 'rows';
      readonly columns: string[];
      readonly rows: unknown[][];
      readonly totalRows: number;
      readonly capped: boolean;
      /** The statement may have changed the database or the transaction state (so a restart replays it). */
      readonly changes: boolean;
    }
  | { readonly kind: 'ok'; readonly affectedRows?: number; readonly changes?: boolean }
  | { readonly kind: 'error'; readonly message: string; readonly code?: string; readonly failedAt?: number };
