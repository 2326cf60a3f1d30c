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
import { type SqliteProcess, SqliteProcessExit, type SqliteProcessLimits } from './sqlite-process.js';
import { nativeRows, replyWithin } from './sqlite-reply.js';

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

/** Times a request is sent again after another session's statement had the shared process killed. */
const MAX_COLLATERAL_RETRIES = 3;

/** Attempts to open a session's slot in a new process (each may be cut short by another session). */
const MAX_OPEN_ATTEMPTS = 4;

/** The request never ran: the process ended for a statement of another session (it may be sent again). */
function collateral(error: unknown): boolean {
  return error instanceof SqliteProcessExit && error.collateral;
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
  /** The process whose slot holds this session's state. */
  private openedIn: SqliteProcess | undefined;
  private opening: { process: SqliteProcess; done: Promise<void> } | undefined;
  private changes: string[] = [];
  private changesDropped = false;
  private resetPending = false;
  /** The database or the connection may differ from a fresh copy of the pristine image. */
  private touched = false;
  private closed = false;

  private constructor(
    readonly database: string,
    private readonly file: string,
    private readonly limits: SqliteSessionLimits,
    private readonly onClose: (session: SqliteSession) => void,
    private readonly schema: SqlitePristineSchema,
    private readonly host: SqliteHost,
    private readonly slot: number,
  ) {}

  /** Opens the session in a slot of `host`'s process, on the pristine file of `database`. */
  static async open(
    database: string,
    file: string,
    limits: SqliteSessionLimits,
    onClose: (session: SqliteSession) => void,
    /** The dump model of the database's tables, for introspection (none: SQLite's pragmas only). */
    schema: SqlitePristineSchema,
    host: SqliteHost,
  ): Promise<SqliteSession> {
    const session = new SqliteSession(database, file, limits, onClose, schema, host, host.acquire());
    try {
      await session.ready();
    } catch (error) {
      await session.close();
      throw error;
    }
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
    for (let rewrites = 0; ; rewrites++) {
      const result = await this.send(
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

  /**
   * One statement in the session's slot (with a pending reset folded in): its reply; `timeout` when
   * the deadline passed first (the process is then killed); `crashed` when the statement ended the
   * process. A request that waited behind another session's killed statement is sent again.
   */
  private async send(
    sql: string,
    maxRows: number,
    countLimit: number,
    deadline: number,
    reference: boolean,
  ): Promise<{ reply: SqliteChildReply } | { crashed: string } | 'timeout'> {
    for (let retries = 0; ; ) {
      const process = await this.ready();
      const request = {
        op: 'query',
        slot: this.slot,
        sql,
        maxRows,
        countLimit,
        ...(reference ? { reference } : {}),
        ...this.takeReset(),
      } as const;
      const result = await replyWithin(process.request(request), deadline);
      if (this.closed) throw this.closedError();
      if (result === 'timeout') {
        this.host.kill(process);
        return 'timeout';
      }
      if ('reply' in result) return result;
      if (collateral(result.error) && retries++ < MAX_COLLATERAL_RETRIES) continue;
      await process.finished;
      const reason =
        process.crashReason() ?? (result.error instanceof Error ? result.error.message : 'unknown');
      return { crashed: reason };
    }
  }

  /** The pending reset, to fold into the next request (`reset: true`), and no longer pending. */
  private takeReset(): { reset?: true } {
    if (!this.resetPending) return {};
    this.resetPending = false;
    return { reset: true };
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
    const result = await this.send(sql, CATALOGUE_ROWS, CATALOGUE_ROWS, deadline, reference);
    if (result === 'timeout') throw new CatalogueTimeout();
    if ('crashed' in result) throw new Error(`the query ended the SQLite process: ${result.crashed}`);
    const { reply } = result;
    if (reply.kind === 'error') throw new Error(`introspection failed: ${reply.message}`);
    return reply.kind === 'rows' ? nativeRows(reply.rows) : [];
  }

  /**
   * Makes the database pristine: folded into the next request (see the class), and nothing at all
   * when nothing since the last reset could have changed it (only reading statements ran).
   */
  async reset(): Promise<void> {
    if (this.closed) throw this.closedError();
    this.changes = [];
    this.changesDropped = false;
    if (this.touched) this.resetPending = true;
    this.touched = false;
    await this.ready();
  }

  async close(): Promise<void> {
    if (this.closed) return;
    this.closed = true;
    this.onClose(this);
    this.openedIn = undefined;
    await this.host.release(this.slot);
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
    if (reply.changes && sql !== undefined) {
      this.touched = true;
      this.remember(sql);
    }
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

  /**
   * The live process with this session's slot open in it: in a new process, the slot is opened on
   * the pristine image and the session's changes are replayed (see the class).
   */
  private async ready(): Promise<SqliteProcess> {
    for (let attempt = 1; ; attempt++) {
      if (this.closed) throw this.closedError();
      let process: SqliteProcess;
      try {
        process = await this.host.process();
      } catch (error) {
        throw failed(this.database, error);
      }
      if (this.closed) throw this.closedError();
      if (this.openedIn === process && process.alive) return process;
      if (this.opening?.process !== process) {
        const done = this.openIn(process);
        done.catch(() => undefined);
        this.opening = { process, done };
      }
      try {
        await this.opening.done;
      } catch (error) {
        if (this.opening?.process === process) this.opening = undefined;
        if (this.closed) throw this.closedError();
        if (!(error instanceof SqliteProcessExit) || attempt >= MAX_OPEN_ATTEMPTS) {
          throw failed(this.database, error);
        }
      }
    }
  }

  /** Opens the slot in `process` on the pristine image, then replays the session's changes. */
  private async openIn(process: SqliteProcess): Promise<void> {
    const replay = this.changesDropped ? [] : [...this.changes];
    if (this.changesDropped) {
      this.changes = [];
      this.changesDropped = false;
    }
    this.resetPending = false;
    this.touched = replay.length > 0;
    const opened = await process.request({ op: 'open', slot: this.slot, file: this.file });
    if (opened.kind === 'error') throw new SqlEngineError('SQL_ENGINE_FAILED', opened.message);
    if (replay.length > 0) {
      const replayed = await this.replay(process, replay);
      if (replayed !== 'ok') {
        this.changes = [];
        this.touched = false;
      }
      if (replayed === 'timeout') throw new SqliteProcessExit('the replay passed its time limit', true);
      if (replayed === 'failed') {
        const reply = await process.request({ op: 'reset', slot: this.slot });
        if (reply.kind === 'error') throw new SqlEngineError('SQL_ENGINE_FAILED', reply.message);
      }
    }
    this.openedIn = process;
  }

  /** Replays statements within the replay time limit (killing the process when it is exceeded). */
  private async replay(process: SqliteProcess, statements: string[]): Promise<'ok' | 'failed' | 'timeout'> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<'timeout'>((resolve) => {
      timer = setTimeout(() => resolve('timeout'), this.limits.replayTimeoutMs);
    });
    const reply = await Promise.race([
      process.request({ op: 'replay', slot: this.slot, statements }),
      deadline,
    ]);
    clearTimeout(timer);
    if (reply !== 'timeout') return reply.kind === 'error' ? 'failed' : 'ok';
    this.host.kill(process);
    return 'timeout';
  }
}
