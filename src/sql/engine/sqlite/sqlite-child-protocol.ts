/**
 * Requests to a SQLite session process (see `sqlite-child.cjs`); `id` pairs a reply with its
 * request. A process holds any number of databases, each in a numbered `slot` (one per session).
 */
export type SqliteChildRequest =
  /** Load the pristine image from a database file (once per file) and open a copy of it in `slot`. */
  | { readonly op: 'open'; readonly slot: number; readonly file: string }
  /** Open in `slot` a copy of the current state of the database in `from` (a fork). */
  | { readonly op: 'copy'; readonly slot: number; readonly from: number }
  /** Replace the slot's working copy with a fresh copy of the pristine image. */
  | { readonly op: 'reset'; readonly slot: number }
  /** Drop the slot's database (and the pristine image once no slot uses it). */
  | { readonly op: 'close'; readonly slot: number }
  /**
   * Run one statement; rows past `maxRows` are counted up to `countLimit`. `reference`: the
   * statement must only read (SQLite's `sqlite3_stmt_readonly`), else it is refused unrun.
   * `reset`: make the copy pristine first (a reset folded into the next request).
   */
  | {
      readonly op: 'query';
      readonly slot: number;
      readonly sql: string;
      readonly maxRows: number;
      readonly countLimit: number;
      readonly reference?: boolean;
      readonly reset?: boolean;
    }
  /** Run statements that succeeded before, in order, stopping at the first error. */
  | { readonly op: 'replay'; readonly slot: number; readonly statements: readonly string[] };

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
