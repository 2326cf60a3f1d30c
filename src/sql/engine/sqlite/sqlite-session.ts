import {
  answerMysqlIntrospection,
  limitIntrospectionRows,
} from '../../introspection/answer-mysql-introspection.js';
import {
  type IntrospectionStatement,
  recognizeMysqlIntrospection,
} from '../../introspection/recognize-mysql-introspection.js';
import { doubleQuotedAsString } from '../double-quoted-as-string.js';
import { refusedOutcome, timedOutOutcome } from '../query-outcomes.js';
import { singleStatement } from '../single-statement.js';
import { QUERY_ERROR, type QueryOptions, type QueryOutcome, type SqlSession } from '../sql-engine.js';
import { errorReason, SqlEngineError } from '../sql-engine-error.js';
import { SqliteCatalogue, type SqlitePristineSchema } from './sqlite-catalogue.js';
import type { SqliteChildReply } from './sqlite-child-protocol.js';
import { unresolvedDoubleQuoted } from './sqlite-double-quoted-strings.js';
import { sqliteRefusal } from './sqlite-guard.js';
import type { SqliteHost } from './sqlite-host.js';
import type { SqliteProcessLimits } from './sqlite-process.js';
import { nativeRows } from './sqlite-reply.js';
import { SqliteSlot, type SqliteSlotLimits } from './sqlite-slot.js';

/** Settings of SQLite sessions. */
export interface SqliteSessionLimits extends SqliteProcessLimits, SqliteSlotLimits {
  /** Rows counted in all before counting stops (`totalRowsCapped`). */
  readonly countLimit: number;
  /** `"x"` that names no column is the string `'x'` (SQLite's legacy behaviour; see `sqlite-double-quoted-strings.ts`). */
  readonly doubleQuotedStrings: boolean;
}

/** Rewrites of one query for double-quoted strings (one per distinct unresolved name). */
const MAX_REWRITES = 64;

/** Rows of an internal catalogue query (far more than a database's tables, columns or indexes). */
const CATALOGUE_ROWS = 1_000_000;

/** An internal catalogue query passed the statement's time limit (the process was restarted). */
class CatalogueTimeout extends Error {}

/** The engine's set of open sessions. */
export interface SessionRegistry {
  add(session: SqliteSession): void;
  delete(session: SqliteSession): void;
}

/**
 * A session on one SQLite database, held in a slot of a session process (`SqliteHost`, shared by
 * the sessions of one environment; see `sqlite-child.cjs`) as an in-memory copy of the pristine
 * database file.
 *
 * - `reset` swaps in a fresh copy of the pristine image held in the process (no file access; a
 *   fraction of a millisecond on Spider's databases). It is folded into the session's next request.
 * - A query past its time limit gets the process killed; in the next process each session of the
 *   host opens its slot on the pristine image and replays, in order, its statements since the last
 *   reset that changed the database or the transaction state, so the session keeps its state (as a
 *   server's `KILL QUERY` would). Past `replayLimit` such statements, or when the replay fails, the
 *   session restarts pristine instead. Requests of other sessions that were waiting behind the
 *   killed statement are sent again to the next process.
 * - A query that ends the process (the memory limit, a crash) is answered the same way, as
 *   `ENGINE_CRASHED`.
 * - MySQL's introspection statements (`SHOW TABLES`, `DESCRIBE t`, …: see `answer-mysql-introspection.ts`)
 *   never reach SQLite: they are answered from the dump model and the session's current schema
 *   (`SqliteCatalogue`), within the same time limit. Any other `SHOW` is an `ER_NOT_SUPPORTED_YET`
 *   error naming the covered statements (SQLite has no `SHOW`).
 */
export class SqliteSession implements SqlSession {
  /** Requests reach the session process in the order they are made (see `SqliteSlot.send`). */
  readonly ordered = true;
  private closed = false;

  private constructor(
    readonly database: string,
    private readonly limits: SqliteSessionLimits,
    private readonly registry: SessionRegistry,
    private readonly schema: SqlitePristineSchema,
    private readonly slot: SqliteSlot,
  ) {}

  /** Opens the session in a slot of `host`'s process, on the pristine file of `database`. */
  static async open(
    database: string,
    file: string,
    limits: SqliteSessionLimits,
    /** Where the engine keeps its open sessions (a fork adds its copy; a close removes itself). */
    registry: SessionRegistry,
    /** The dump model of the database's tables, for introspection (none: SQLite's pragmas only). */
    schema: SqlitePristineSchema,
    host: SqliteHost,
  ): Promise<SqliteSession> {
    const slot = new SqliteSlot(database, file, limits, host);
    try {
      await slot.ready();
    } catch (error) {
      await slot.close();
      throw error;
    }
    return new SqliteSession(database, limits, registry, schema, slot);
  }

  async query(sql: string, options: QueryOptions): Promise<QueryOutcome> {
    return this.run(sql, options, false);
  }

  /**
   * The statement on the session's connection, provided SQLite finds that it only reads
   * (`sqlite3_stmt_readonly`; anything else is refused unrun): a statement that only reads leaves
   * nothing a later statement of the connection can observe (`changes()`, `total_changes()` and
   * `last_insert_rowid()` move only with writes), so a second connection, a second copy of the
   * database in memory, would buy nothing (see `SqlSession.referenceQuery`).
   */
  referenceQuery(sql: string, options: QueryOptions): Promise<QueryOutcome> {
    return this.run(sql, options, true);
  }

  private async run(sql: string, options: QueryOptions, reference: boolean): Promise<QueryOutcome> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    if (this.closed) throw this.slot.closedError();
    const check = singleStatement(sql, 'sqlite');
    if (!check.ok) return refusedOutcome(check.message, check.code, elapsed());
    const refusal = sqliteRefusal(check.statement);
    if (refusal) return refusedOutcome(refusal, QUERY_ERROR.forbidden, elapsed());
    const deadline = started + Math.max(0, options.timeoutMs);
    const introspection = recognizeMysqlIntrospection(check.statement.tokens);
    if (introspection) return this.introspect(introspection, options, deadline, elapsed, reference);
    let text = sql;
    for (let rewrites = 0; ; rewrites++) {
      const result = await this.slot.send(
        text,
        Math.max(0, options.maxRows),
        this.limits.countLimit,
        deadline,
        reference,
      );
      if (result === 'timeout') return timedOutOutcome(options.timeoutMs, elapsed());
      if ('crashed' in result) {
        return {
          kind: 'error',
          message: `the query ended the SQLite process: ${result.crashed}`,
          code: QUERY_ERROR.crashed,
          durationMs: elapsed(),
        };
      }
      const { reply } = result;
      if (reply.kind === 'error' && this.limits.doubleQuotedStrings && rewrites < MAX_REWRITES) {
        const name = unresolvedDoubleQuoted(reply.message);
        const rewritten = name === undefined ? undefined : doubleQuotedAsString(text, name, 'sqlite');
        if (rewritten !== undefined) {
          text = rewritten;
          continue;
        }
      }
      return this.outcome(reference ? undefined : text, reply, elapsed());
    }
  }

  /** Answers a MySQL introspection statement from the dump model and the session's current schema. */
  private async introspect(
    statement: IntrospectionStatement,
    options: QueryOptions,
    deadline: number,
    elapsed: () => number,
    reference: boolean,
  ): Promise<QueryOutcome> {
    const catalogue = new SqliteCatalogue(this.schema, (sql) => this.catalogueRows(sql, deadline, reference));
    try {
      const outcome = await answerMysqlIntrospection(statement, catalogue);
      return { ...limitIntrospectionRows(outcome, Math.max(0, options.maxRows)), durationMs: elapsed() };
    } catch (error) {
      if (error instanceof SqlEngineError) throw error;
      if (error instanceof CatalogueTimeout) return timedOutOutcome(options.timeoutMs, elapsed());
      const reason = errorReason(error);
      return { kind: 'error', message: reason, code: QUERY_ERROR.crashed, durationMs: elapsed() };
    }
  }

  /** Rows of an internal read-only query on the session's connection (not remembered for replay). */
  private async catalogueRows(sql: string, deadline: number, reference: boolean): Promise<unknown[][]> {
    const result = await this.slot.send(sql, CATALOGUE_ROWS, CATALOGUE_ROWS, deadline, reference);
    if (result === 'timeout') throw new CatalogueTimeout();
    if ('crashed' in result) throw new Error(`the query ended the SQLite process: ${result.crashed}`);
    const { reply } = result;
    if (reply.kind === 'error') throw new Error(`introspection failed: ${reply.message}`);
    return reply.kind === 'rows' ? nativeRows(reply.rows) : [];
  }

  /** Makes the database pristine (folded into the next request; nothing after reading only). */
  async reset(): Promise<void> {
    if (this.closed) throw this.slot.closedError();
    await this.slot.reset();
  }

  /** A copy of the session in a new slot of the same process (see `SqliteSlot.fork`). */
  async fork(): Promise<SqliteSession> {
    if (this.closed) throw this.slot.closedError();
    const copy = new SqliteSession(
      this.database,
      this.limits,
      this.registry,
      this.schema,
      await this.slot.fork(),
    );
    this.registry.add(copy);
    return copy;
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.registry.delete(this);
    await this.slot.close();
  }

  /** The reply as an outcome; `sql` (the session's own statements) is remembered for replay when it changed something. */
  private outcome(sql: string | undefined, reply: SqliteChildReply, durationMs: number): QueryOutcome {
    if (reply.kind === 'error') {
      return {
        kind: 'error',
        message: reply.message,
        ...(reply.code ? { code: reply.code } : {}),
        durationMs,
      };
    }
    if (reply.changes && sql !== undefined) this.slot.remember(sql);
    if (reply.kind === 'ok') {
      return {
        kind: 'ok',
        ...(reply.affectedRows !== undefined ? { affectedRows: reply.affectedRows } : {}),
        durationMs,
      };
    }
    const rows = nativeRows(reply.rows);
    return {
      kind: 'rows',
      columns: reply.columns,
      rows,
      totalRows: reply.totalRows,
      truncated: reply.totalRows > rows.length,
      ...(reply.capped ? { totalRowsCapped: true } : {}),
      durationMs,
    };
  }
}
