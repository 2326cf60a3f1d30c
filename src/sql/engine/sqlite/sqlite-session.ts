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
import { SqliteProcess, type SqliteProcessLimits } from './sqlite-process.js';

/** Settings of SQLite sessions. */
export interface SqliteSessionLimits extends SqliteProcessLimits {
  /** Rows counted in all before counting stops (`totalRowsCapped`). */
  readonly countLimit: number;
  /** Statements that changed the database kept for replay after a restart; past it a restart starts pristine. */
  readonly replayLimit: number;
  /** Time limit of that replay. */
  readonly replayTimeoutMs: number;
  /** `"x"` that names no column is the string `'x'` (SQLite's legacy behaviour; see `sqlite-double-quoted-strings.ts`). */
  readonly doubleQuotedStrings: boolean;
}

/** Rewrites of one query for double-quoted strings (one per distinct unresolved name). */
const MAX_REWRITES = 64;

/** Rows of an internal catalogue query (far more than a database's tables, columns or indexes). */
const CATALOGUE_ROWS = 1_000_000;

/** An internal catalogue query passed the statement's time limit (the process was restarted). */
class CatalogueTimeout extends Error {}

/** The session's process is gone and could not be restarted. */
function failed(database: string, cause: unknown): SqlEngineError {
  if (cause instanceof SqlEngineError) return cause;
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new SqlEngineError('SQL_ENGINE_FAILED', `SQLite session on ${database} failed: ${reason}`, {
    cause,
  });
}

/** Converts values the IPC channel turned into plain `Uint8Array`s back into `Buffer`s. */
function nativeRows(rows: unknown[][]): unknown[][] {
  for (const row of rows) {
    for (let i = 0; i < row.length; i++) {
      const value = row[i];
      if (value instanceof Uint8Array && !Buffer.isBuffer(value)) {
        row[i] = Buffer.from(value.buffer, value.byteOffset, value.byteLength);
      }
    }
  }
  return rows;
}

/**
 * A session on one SQLite database, run in its own process (see `SQLITE_CHILD_SOURCE`) on an
 * in-memory copy of the pristine database file.
 *
 * - `reset` swaps in a fresh copy of the pristine image held in the process (no file access; a
 *   fraction of a millisecond on Spider's databases).
 * - A query past its time limit gets the process killed; a new process starts on the pristine image
 *   and replays, in order, the statements since the last reset that changed the database or the
 *   transaction state, so the session keeps its state (as a server's `KILL QUERY` would). Past
 *   `replayLimit` such statements, or when the replay fails, the session restarts pristine instead.
 * - A query that ends the process (the memory limit, a crash) is answered the same way, as
 *   `ENGINE_CRASHED`.
 * - MySQL's introspection statements (`SHOW TABLES`, `DESCRIBE t`, …: see `answer-mysql-introspection.ts`)
 *   never reach SQLite: they are answered from the dump model and the session's current schema
 *   (`SqliteCatalogue`), within the same time limit. Any other `SHOW` is an `ER_NOT_SUPPORTED_YET`
 *   error naming the covered statements (SQLite has no `SHOW`).
 */
export class SqliteSession implements SqlSession {
  private process: SqliteProcess | undefined;
  private starting: Promise<SqliteProcess> | undefined;
  private changes: string[] = [];
  private changesDropped = false;
  private closed = false;
  private generation = 0;

  private constructor(
    readonly database: string,
    private readonly file: string,
    private readonly limits: SqliteSessionLimits,
    private readonly onClose: (session: SqliteSession) => void,
    private readonly schema: SqlitePristineSchema,
  ) {}

  /** Starts the session's process on the pristine file of `database`. */
  static async open(
    database: string,
    file: string,
    limits: SqliteSessionLimits,
    onClose: (session: SqliteSession) => void,
    /** The dump model of the database's tables, for introspection (none: SQLite's pragmas only). */
    schema: SqlitePristineSchema = { database, tables: new Map() },
  ): Promise<SqliteSession> {
    const session = new SqliteSession(database, file, limits, onClose, schema);
    await session.ready();
    return session;
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
    if (this.closed) throw this.closedError();
    const check = singleStatement(sql, 'sqlite');
    if (!check.ok) return refusedOutcome(check.message, check.code, elapsed());
    const refusal = sqliteRefusal(check.statement);
    if (refusal) return refusedOutcome(refusal, QUERY_ERROR.forbidden, elapsed());
    const deadline = started + Math.max(0, options.timeoutMs);
    const introspection = recognizeMysqlIntrospection(check.statement.tokens);
    if (introspection) return this.introspect(introspection, options, deadline, elapsed, reference);
    let text = sql;
    for (let attempt = 0; ; attempt++) {
      const process = await this.ready();
      const request = {
        op: 'query',
        sql: text,
        maxRows: Math.max(0, options.maxRows),
        countLimit: this.limits.countLimit,
        ...(reference ? { reference } : {}),
      } as const;
      const result = await this.within(process.request(request), deadline);
      if (this.closed) throw this.closedError();
      if (result === 'timeout') {
        process.kill();
        this.restart();
        return timedOutOutcome(options.timeoutMs, elapsed());
      }
      if (!('reply' in result)) {
        await process.finished;
        const reason =
          process.crashReason() ?? (result.error instanceof Error ? result.error.message : 'unknown');
        this.restart();
        return {
          kind: 'error',
          message: `the query ended the SQLite process: ${reason}`,
          code: QUERY_ERROR.crashed,
          durationMs: elapsed(),
        };
      }
      const { reply } = result;
      if (reply.kind === 'error' && this.limits.doubleQuotedStrings && attempt < MAX_REWRITES) {
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
    const process = await this.ready();
    const request = {
      op: 'query',
      sql,
      maxRows: CATALOGUE_ROWS,
      countLimit: CATALOGUE_ROWS,
      ...(reference ? { reference } : {}),
    } as const;
    const result = await this.within(process.request(request), deadline);
    if (this.closed) throw this.closedError();
    if (result === 'timeout') {
      process.kill();
      this.restart();
      throw new CatalogueTimeout();
    }
    if (!('reply' in result)) {
      await process.finished;
      const reason =
        process.crashReason() ?? (result.error instanceof Error ? result.error.message : 'unknown');
      this.restart();
      throw new Error(`the query ended the SQLite process: ${reason}`);
    }
    const { reply } = result;
    if (reply.kind === 'error') throw new Error(`introspection failed: ${reply.message}`);
    return reply.kind === 'rows' ? nativeRows(reply.rows) : [];
  }

  /** The reply, or `timeout` when the deadline (a `performance.now()` time) passes first. */
  private async within(
    request: Promise<SqliteChildReply>,
    deadline: number,
  ): Promise<{ reply: SqliteChildReply } | { error: unknown } | 'timeout'> {
    let timer: NodeJS.Timeout | undefined;
    const expiry = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), Math.max(0, deadline - performance.now()));
    });
    const result = await Promise.race([
      request.then(
        (reply) => ({ reply }),
        (error: unknown) => ({ error }),
      ),
      expiry,
    ]);
    clearTimeout(timer);
    return result;
  }

  async reset(): Promise<void> {
    this.changes = [];
    this.changesDropped = false;
    const process = await this.ready();
    try {
      await this.resetProcess(process);
    } catch (error) {
      process.kill();
      this.restart();
      await this.ready().catch(() => {
        throw failed(this.database, error);
      });
    }
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    const pending = this.starting;
    this.process?.kill();
    this.process = undefined;
    if (pending) (await pending.catch(() => undefined))?.kill();
  }

  private closedError(): SqlEngineError {
    return new SqlEngineError('SQL_SESSION_CLOSED', `the SQLite session on ${this.database} is closed`);
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
    if (reply.changes && sql !== undefined) this.remember(sql);
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

  private remember(sql: string): void {
    if (this.changes.length < this.limits.replayLimit) this.changes.push(sql);
    else this.changesDropped = true;
  }

  /** The live process, waiting for a (re)start in progress; throws when the session cannot go on. */
  private async ready(): Promise<SqliteProcess> {
    if (this.closed) throw this.closedError();
    if (this.process?.alive) return this.process;
    if (!this.starting) this.restart();
    try {
      return await (this.starting as Promise<SqliteProcess>);
    } catch (error) {
      this.starting = undefined;
      throw failed(this.database, error);
    }
  }

  /** Starts a new process in the background: pristine image, then the replay of the session's changes. */
  private restart(): void {
    this.process = undefined;
    const replay = this.changesDropped ? [] : [...this.changes];
    if (this.changesDropped) {
      this.changes = [];
      this.changesDropped = false;
    }
    const generation = ++this.generation;
    const starting = (async () => {
      let process = await this.startOpened();
      if (replay.length > 0) {
        const replayed = await this.replay(process, replay);
        if (replayed !== 'ok') this.changes = [];
        if (replayed === 'timeout') process = await this.startOpened();
        else if (replayed === 'failed') await this.resetProcess(process);
      }
      if (this.closed) process.kill();
      else if (this.generation === generation) {
        this.process = process;
        this.starting = undefined;
      }
      return process;
    })();
    starting.catch(() => undefined);
    this.starting = starting;
  }

  /** A new process with the pristine database open. */
  private async startOpened(): Promise<SqliteProcess> {
    const process = await SqliteProcess.start(this.limits);
    try {
      const opened = await process.request({ op: 'open', file: this.file });
      if (opened.kind === 'error') throw new Error(opened.message);
      return process;
    } catch (error) {
      process.kill();
      throw error;
    }
  }

  private async resetProcess(process: SqliteProcess): Promise<void> {
    const reply = await process.request({ op: 'reset' });
    if (reply.kind === 'error') throw new Error(reply.message);
  }

  /** Replays statements within the replay time limit (killing the process when it is exceeded). */
  private async replay(process: SqliteProcess, statements: string[]): Promise<'ok' | 'failed' | 'timeout'> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.limits.replayTimeoutMs);
    });
    const reply = await Promise.race([process.request({ op: 'replay', statements }), deadline]);
    clearTimeout(timer);
    if (reply !== 'timeout') return reply.kind === 'error' ? 'failed' : 'ok';
    process.kill();
    return 'timeout';
  }
}
