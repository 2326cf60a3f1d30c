import type { DumpModel } from '../dump/dump-model.js';

/**
 * The SQL engines. Each speaks its own dialect; the databases come from the same MySQL dump
 * (see {@link DumpModel}), converted per engine.
 */
export type SqlEngineId = 'sqlite' | 'mysql' | 'postgres';

/**
 * A database server (or embedded library) that holds the databases of one or more dumps and hands
 * out sessions on them.
 *
 * Life cycle: `prepare` each dump once (repeated calls with a dump already prepared are cheap),
 * `open` any number of sessions, `close` the engine (which closes its sessions).
 *
 * Contract for every implementation:
 * - Every database a session sees starts pristine: exactly the dump's tables and rows.
 * - Sessions are isolated: nothing one session runs (DDL, DML, open transactions, session settings)
 *   is visible to another session or survives its `reset`.
 * - A session reaches only its own database: no other database, no file, no network, no server
 *   setting that outlives it.
 * - Errors of a query (syntax, unknown table, time limit, refused statement) are
 *   {@link QueryOutcome}s; exceptions ({@link SqlEngineError}) are only for infrastructure failures
 *   and misuse, with stable codes: `SQL_ENGINE_UNAVAILABLE` (the engine cannot run on this machine:
 *   missing server or library, message says what to install), `SQL_ENGINE_FAILED` (it broke: a
 *   conversion or load failed, a server died and did not come back), `SQL_DATABASE_UNKNOWN`
 *   (`open` of a database no prepared dump defines), `SQL_SESSION_CLOSED` (use after `close`).
 */
export interface SqlEngine {
  readonly id: SqlEngineId;
  /**
   * Loads the dump's databases so that sessions can open them. Loads once: a built copy is cached
   * where possible (SQLite: files keyed by the dump's `sha256` and the converter version), so that
   * the next process only checks that the copy is there. Database names are case-insensitive; two
   * dumps that define the same database name with different content are an error.
   */
  prepare(dump: DumpModel): Promise<void>;
  /** A new session on one prepared database (by its dump name, e.g. `concert_singer`). */
  open(database: string, options?: SqlOpenOptions): Promise<SqlSession>;
  /** Closes every session and releases the engine's resources. Idempotent. */
  close(): Promise<void>;
}

/** Options of `SqlEngine.open`. */
export interface SqlOpenOptions {
  /**
   * Sessions opened with the same object (an environment passes itself) may share the engine's
   * resources. SQLite: one session process holds them all, so an environment that moves between
   * databases starts one process, not one per database. They stay isolated from each other; what
   * they share is the process's life: a statement past its time limit gets it killed, and the
   * others then open again in the next process and replay their changes (requests of theirs that
   * were waiting are sent again). Server engines ignore it.
   */
  readonly share?: object;
}

/** Limits of one query. */
export interface QueryOptions {
  /**
   * Wall-clock limit. A query still running then is cancelled for real (its work stops, its partial
   * effects are rolled back) and the outcome is an error with `timedOut: true`; the session stays
   * usable and keeps the state it had before the query.
   */
  readonly timeoutMs: number;
  /**
   * Most rows returned; `Number.POSITIVE_INFINITY` returns all (what a reward computation needs).
   * Rows past it are counted (up to the engine's count bound) but not returned.
   */
  readonly maxRows: number;
}

/** Statement that returned a result set (even an empty one). */
export interface RowsOutcome {
  readonly kind: 'rows';
  /** Column labels as the engine reports them (duplicates kept: `SELECT a, a`). */
  readonly columns: string[];
  /**
   * At most `maxRows` rows, each one value per column, engine-native JS values. SQLite: `bigint` for
   * INTEGER (always, so that integers and reals stay distinguishable: `3n` is an int, `3` a float),
   * `number` for REAL, `string` for TEXT, `Buffer` for BLOB, `null` for NULL.
   */
  readonly rows: unknown[][];
  /**
   * Optional: the engine's type of each column, lower case, where the JS value alone does not tell
   * (a `string` may be text, an exact decimal or a date). MySQL: `int`, `bigint`, `decimal`,
   * `double`, `float`, `varchar`, `text`, `date`, `datetime`, `timestamp`, `time`, `year`, `bit`,
   * `blob`, … (`mysqlColumnType`); PostgreSQL: `pg_type.typname` (`int4`, `int8`, `numeric`,
   * `float8`, `text`, `citext`, `date`, `timestamp`, `bool`, …). Engines that do not report types
   * (SQLite) leave it out.
   */
  readonly columnTypes?: string[];
  /** Rows the statement produced; a lower bound when `totalRowsCapped`. */
  readonly totalRows: number;
  /** True when `rows` holds fewer rows than `totalRows`. */
  readonly truncated: boolean;
  /** Counting stopped at the engine's bound: more rows existed than `totalRows` says. */
  readonly totalRowsCapped?: boolean;
  /** Wall-clock time of the query as the caller saw it, in milliseconds. */
  readonly durationMs: number;
}

/** Statement without a result set (DDL, DML, transaction control, `SET`). */
export interface OkOutcome {
  readonly kind: 'ok';
  /** Rows inserted, updated or deleted, when the statement is DML and the engine says so. */
  readonly affectedRows?: number;
  readonly durationMs: number;
}

/**
 * A query that failed. `code` is either one of the engine-neutral codes below, set by every engine
 * for the same situation, or the engine's own code (SQLite: `SQLITE_ERROR`; MySQL: `ER_NO_SUCH_TABLE`;
 * PostgreSQL: the SQLSTATE such as `42P01`).
 * - `MULTIPLE_STATEMENTS`: more than one statement in one query (message: "one statement per action");
 * - `EMPTY_QUERY`: no statement at all (blank, or comments only);
 * - `FORBIDDEN_STATEMENT`: a statement that would reach beyond the session's database;
 * - `TIMEOUT`: the time limit passed (`timedOut: true`);
 * - `ENGINE_CRASHED`: the query took the engine's process down (e.g. out of memory); the session
 *   came back with the state it had before the query.
 */
export interface ErrorOutcome {
  readonly kind: 'error';
  /** The engine's message, one line where the engine allows (e.g. `no such table: foo`). */
  readonly message: string;
  readonly code?: string;
  readonly timedOut?: boolean;
  readonly durationMs: number;
}

/** What one query did. */
export type QueryOutcome = RowsOutcome | OkOutcome | ErrorOutcome;

/** Engine-neutral error codes of {@link ErrorOutcome}. */
export const QUERY_ERROR = {
  multipleStatements: 'MULTIPLE_STATEMENTS',
  emptyQuery: 'EMPTY_QUERY',
  forbidden: 'FORBIDDEN_STATEMENT',
  timeout: 'TIMEOUT',
  crashed: 'ENGINE_CRASHED',
} as const;

/**
 * A connection to one database of an engine, used by one episode at a time. Calls must not overlap
 * (await each before the next) unless the session is `ordered`.
 */
export interface SqlSession {
  /** The database this session is on. */
  readonly database: string;
  /**
   * Optional, `true` when calls may overlap: each runs after every call made before it has ended,
   * in the order they were made, and its time limit counts from when it starts (SQLite: a session
   * process answers its requests in order). The environment then sends an episode's gold and the
   * agent's first query without waiting between them.
   */
  readonly ordered?: boolean;
  /**
   * Runs exactly one statement. Never throws for a query's own failure: see {@link QueryOutcome}.
   * Several statements in one call are refused (`MULTIPLE_STATEMENTS`) before anything runs.
   */
  query(sql: string, options: QueryOptions): Promise<QueryOutcome>;
  /**
   * Runs one statement as `query` does, on the session's database while it is pristine (call it
   * right after `open` or `reset`), but from a connection of its own that only reads: nothing it
   * runs shows on the session's connection (`FOUND_ROWS()`, session status counters, per-transaction
   * statistics, `changes()`), and the session's database stays as it was. The episode's gold query
   * runs here: the same copy (same data, same plans, so the same order of tied rows) without the
   * agent's session being able to observe it. A statement that writes fails.
   */
  referenceQuery(sql: string, options: QueryOptions): Promise<QueryOutcome>;
  /**
   * Optional: `true` when a `referenceQuery` may run while `reset` does, because nothing the session
   * ran since its last reset is visible to other connections (the server engines after statements
   * that only read: the reset then only concerns the session's own connection). The environment
   * then runs an episode's gold while the session's connection is being reset.
   */
  referenceDuringReset?(): boolean;
  /**
   * Back to the pristine database, whatever was run: DDL, DML, open transactions, session settings
   * (SQLite: a few milliseconds at most).
   */
  reset(): Promise<void>;
  /**
   * Optional: a new session on an independent copy of this session's database as it is now (data,
   * schema, open transaction, temporary tables, session settings). Closing either leaves the other.
   */
  fork?(): Promise<SqlSession>;
  /** Ends the session. Idempotent. */
  close(): Promise<void>;
}
