import mysql, { type Connection, type FieldPacket, type QueryError, type ResultSetHeader } from 'mysql2';
import { singleStatement } from '../single-statement.js';
import { QUERY_ERROR, type QueryOptions, type QueryOutcome, type SqlSession } from '../sql-engine.js';
import { SqlEngineError, sessionFailure } from '../sql-engine-error.js';
import { checkMysqlStatement, type MysqlStatementKind } from './mysql-guard.js';
import { type MysqlFlavor, mysqlName } from './mysql-schema.js';
import type { MysqlEndpoint } from './mysql-url.js';
import { mysqlColumnType, mysqlTypeCast } from './mysql-values.js';
import { withMysql8GroupOrder } from './mysql8-group-order.js';

/**
 * The delay of a time-limit timer. Node fires timers longer than 2^31 - 1 ms (and `Infinity`) after
 * 1 ms, so an unlimited or very long limit gets the longest delay Node keeps (24.8 days).
 */
function timerDelay(timeoutMs: number): number {
  return Math.min(Math.max(0, timeoutMs), 2 ** 31 - 1);
}

/** One session copy of a database on the server: its database, its account, where it comes from. */
export interface MysqlSlot {
  /** The copy's database name on the server. */
  readonly database: string;
  readonly user: string;
  readonly password: string;
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

/** What a session needs from its engine. */
export interface MysqlSessionHost {
  readonly endpoint: MysqlEndpoint;
  readonly flavor: MysqlFlavor;
  readonly sqlMode: string;
  readonly countLimit: number;
  readonly killGraceMs: number;
  /** The engine's failure (server gone), once there is one. */
  failure(): SqlEngineError | undefined;
  /** Undefined when the server still answers, else the engine's failure. */
  health(): Promise<SqlEngineError | undefined>;
  /** `KILL QUERY` or `KILL CONNECTION` of a session's connection, from an administrator connection. */
  kill(threadId: number, what: 'query' | 'connection'): Promise<void>;
  /**
   * Rebuilds a copy from its template: all of it, or (`touched`: lower-case names the session's
   * changing statements mentioned) only what may differ.
   */
  rebuild(slot: MysqlSlot, touched?: ReadonlySet<string>): Promise<void>;
  /** Hands the copy back for the next session. */
  release(session: MysqlSession, slot: MysqlSlot): void;
}

/** ER_QUERY_INTERRUPTED (KILL QUERY), ER_STATEMENT_TIMEOUT (MariaDB), ER_QUERY_TIMEOUT (MySQL). */
const INTERRUPTED = new Set([1317, 1969, 3024]);
/** ER_PARSE_ERROR: the statement never ran. */
const PARSE_ERROR = 1064;

/** The result of running one statement, before it becomes an outcome. */
interface RunResult {
  columns?: string[];
  columnTypes?: string[];
  rows: unknown[][];
  total: number;
  capped: boolean;
  header?: ResultSetHeader;
  error?: QueryError;
  /** The connection died (server gone or connection killed). */
  lost?: Error;
  timedOut: boolean;
}

/** The copy's database name as a whole word (`Tables_in_` may precede it). */
function copyNamePattern(copy: string): string {
  return `(?<![A-Za-z0-9$])${copy.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')}(?![\\w$])`;
}

function errorMessage(error: Error): string {
  const { sqlMessage } = error as { sqlMessage?: string };
  return (sqlMessage ?? error.message).replace(/\s*\n\s*/g, ' ');
}

/**
 * A session on its own copy of one database (see `MysqlEngine` for copies and accounts).
 *
 * Autocommit is off (as upstream's `mysql.connector`): the agent's DML stays in an open transaction,
 * visible to the next statements of the session (the gold query of the same episode included). The
 * session classifies each statement (`checkMysqlStatement`) to know what `reset` must undo:
 * - nothing but reads: `COM_RESET_CONNECTION` (rollback, temporary tables, variables, locks),
 *   then the session settings again: under a millisecond;
 * - DML, never committed: the same, plus AUTO_INCREMENT counters set back where InnoDB moved them;
 * - DDL (which commits implicitly), COMMIT of writes, `SET autocommit=1`, anything unrecognised:
 *   the same, plus a rebuild of the copy from its template (tens of milliseconds).
 */
export class MysqlSession implements SqlSession {
  #connection: Connection | undefined;
  #threadId = 0;
  /** The connection ended or failed outside a query (noticed at the next call). */
  #lost: Error | undefined;
  /** The copy's name in server text, compiled on first use (a session keeps its copy). */
  #copyName: RegExp | undefined;
  /** Called when the connection fails during a query. */
  #onLost: ((error: Error) => void) | undefined;
  #pendingWrites = false;
  #rebuild = false;
  /** Lower-case names mentioned by the statements that may have changed the copy since the reset. */
  #touched = new Set<string>();
  #closed = false;

  private constructor(
    readonly database: string,
    private readonly slot: MysqlSlot,
    private readonly host: MysqlSessionHost,
  ) {}

  /** Connects to the copy with the copy's account. */
  static async open(database: string, slot: MysqlSlot, host: MysqlSessionHost): Promise<MysqlSession> {
    const session = new MysqlSession(database, slot, host);
    await session.connect();
    return session;
  }

  async query(sql: string, options: QueryOptions): Promise<QueryOutcome> {
    this.assertUsable();
    try {
      return await this.attempt(sql, options);
    } catch (error) {
      throw await this.infrastructure(error);
    }
  }

  private async attempt(sql: string, options: QueryOptions): Promise<QueryOutcome> {
    const started = performance.now();
    const elapsed = () => performance.now() - started;
    this.assertUsable();
    if (this.#lost || !this.#connection) await this.recover();
    const check = singleStatement(sql, 'mysql');
    if (!check.ok) return { kind: 'error', message: check.message, code: check.code, durationMs: elapsed() };
    const verdict = checkMysqlStatement(check.statement);
    if (verdict.refusal) {
      return { kind: 'error', message: verdict.refusal, code: QUERY_ERROR.forbidden, durationMs: elapsed() };
    }
    let text = check.statement.text;
    if (verdict.use !== undefined) {
      const target = verdict.use.toLowerCase();
      if (target !== this.database.toLowerCase() && target !== this.slot.database) {
        return {
          kind: 'error',
          message: `USE ${verdict.use} is not allowed: this session works on database ${this.database} only`,
          code: QUERY_ERROR.forbidden,
          durationMs: elapsed(),
        };
      }
      text = `USE ${mysqlName(this.slot.database)}`;
    }
    if (this.host.flavor === 'mariadb') text = withMysql8GroupOrder(text);
    const rebuildBefore = this.#rebuild;
    this.note(verdict.kind, verdict.names);
    const result = await this.run(text, verdict.kind, options);
    if (result.lost) return this.afterLoss(result, options, elapsed);
    if (result.error?.errno === PARSE_ERROR && verdict.kind === 'other') this.#rebuild = rebuildBefore;
    return this.outcome(result, verdict.kind, options, elapsed());
  }

  async reset(): Promise<void> {
    this.assertUsable();
    try {
      await this.resetNow();
    } catch (error) {
      throw await this.infrastructure(error);
    }
  }

  /** An unexpected failure as the engine's error: the server's failure when it is gone. */
  private infrastructure(error: unknown): Promise<SqlEngineError> {
    return sessionFailure(error, () => this.host.health(), `the MySQL session on ${this.database}`);
  }

  private async resetNow(): Promise<void> {
    if (this.#lost || !this.#connection) {
      await this.recover();
      return;
    }
    try {
      await this.command((connection, done) => connection.reset(done));
      if (this.#rebuild) await this.host.rebuild(this.slot, this.#touched);
      await this.setup(this.#rebuild);
      if (this.#pendingWrites) await this.restoreAutoIncrements();
      this.#rebuild = false;
      this.#pendingWrites = false;
      this.#touched.clear();
    } catch (error) {
      const failure = await this.host.health();
      if (failure) throw failure;
      if (error instanceof SqlEngineError) throw error;
      await this.recover();
    }
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    if (this.#rebuild || this.#pendingWrites || this.#lost) this.slot.dirty = true;
    const connection = this.#connection;
    this.#connection = undefined;
    if (connection) {
      await new Promise<void>((resolve) => {
        connection.end(() => resolve());
        setTimeout(resolve, 1_000).unref();
      });
      connection.destroy();
    }
    if (!this.host.failure()) this.host.release(this, this.slot);
  }

  private assertUsable(): void {
    if (this.#closed)
      throw new SqlEngineError('SQL_SESSION_CLOSED', `the MySQL session on ${this.database} is closed`);
    const failure = this.host.failure();
    if (failure) throw failure;
  }

  /** Records what a statement may change, before it runs. */
  private note(kind: MysqlStatementKind, names: readonly string[]): void {
    if (kind === 'read') return;
    for (const name of names) this.#touched.add(name);
    if (kind === 'write') this.#pendingWrites = true;
    else if (kind === 'other') this.#rebuild = true;
    else if (kind === 'commit' && this.#pendingWrites) this.#rebuild = true;
  }

  private async connect(): Promise<void> {
    const connection = mysql.createConnection({
      ...this.host.endpoint,
      user: this.slot.user,
      password: this.slot.password,
      database: this.slot.database,
      charset: 'UTF8MB4_GENERAL_CI',
      supportBigNumbers: true,
      bigNumberStrings: true,
      decimalNumbers: false,
      dateStrings: true,
      jsonStrings: true,
      typeCast: mysqlTypeCast,
      rowsAsArray: true,
      multipleStatements: false,
      flags: ['-LOCAL_FILES', '-MULTI_STATEMENTS'],
      connectTimeout: 10_000,
    });
    const lost = (error: Error) => {
      if (this.#connection !== connection) return;
      this.#lost ??= error;
      this.#onLost?.(error);
    };
    connection.on('error', lost);
    connection.on('end', () => lost(new Error('the server closed the connection')));
    await new Promise<void>((resolve, reject) =>
      connection.connect((error) => (error ? reject(error) : resolve())),
    );
    this.#connection = connection;
    this.#lost = undefined;
    this.#threadId = connection.threadId ?? 0;
    await this.setup(false);
  }

  /**
   * Text the server wrote with the copy's name (`Tables_in_voter_1__2`, `Table 'voter_1__2.x'
   * doesn't exist`) as the agent would see it on upstream's single database (`voter_1`).
   */
  private unmask(text: string): string {
    const shown = this.database.toLowerCase();
    if (this.slot.database === shown) return text;
    this.#copyName ??= new RegExp(copyNamePattern(this.slot.database), 'gi');
    return text.replace(this.#copyName, shown);
  }

  /** The session settings (again after `COM_RESET_CONNECTION`, which restores the server's defaults). */
  private async setup(use: boolean): Promise<void> {
    const settings = [
      'NAMES utf8mb4 COLLATE utf8mb4_general_ci',
      `SESSION sql_mode = '${this.host.sqlMode.replaceAll("'", "''")}'`,
      "time_zone = '+00:00'",
      'autocommit = 0',
    ];
    if (this.host.flavor === 'mysql') settings.push('information_schema_stats_expiry = 0');
    // MariaDB breaks ties of a sort over an in-memory temporary table (GROUP BY … ORDER BY
    // count(*) LIMIT 1) by the rows' memory addresses, so the same query on two copies of one
    // database can return different rows. On-disk (Aria) temporary tables order ties by insertion,
    // the same everywhere, and on tmpfs they cost little.
    else settings.push('tmp_memory_table_size = 0');
    await this.simple(`SET ${settings.join(', ')}`);
    if (use) await this.simple(`USE ${mysqlName(this.slot.database)}`);
  }

  /** A new connection on a rebuilt copy (after the connection was lost while the server lives). */
  private async recover(): Promise<void> {
    const failure = await this.host.health();
    if (failure) throw failure;
    this.#connection?.destroy();
    this.#connection = undefined;
    await this.host.rebuild(this.slot);
    await this.connect();
    this.#rebuild = false;
    this.#pendingWrites = false;
    this.#touched.clear();
  }

  /** InnoDB does not roll AUTO_INCREMENT counters back: set them to the pristine values again. */
  private async restoreAutoIncrements(): Promise<void> {
    if (this.slot.autoIncrements.size === 0) return;
    const rows = (await this.simple(
      'SELECT TABLE_NAME, AUTO_INCREMENT FROM information_schema.TABLES WHERE TABLE_SCHEMA = DATABASE() AND AUTO_INCREMENT IS NOT NULL',
    )) as unknown[][];
    for (const [table, next] of rows) {
      const pristine = this.slot.autoIncrements.get(String(table).toLowerCase());
      if (pristine !== undefined && String(next) !== pristine) {
        await this.simple(`ALTER TABLE ${mysqlName(String(table))} AUTO_INCREMENT = ${pristine}`);
      }
    }
  }

  /** Runs one of the session's own statements; returns its rows (arrays). */
  private simple(sql: string): Promise<unknown> {
    return this.command((connection, done) => connection.query({ sql, rowsAsArray: true }, done));
  }

  private command<T>(
    start: (connection: Connection, done: (error: Error | null, result?: T) => void) => void,
  ): Promise<T | undefined> {
    const connection = this.#connection;
    if (!connection || this.#lost) return Promise.reject(this.#lost ?? new Error('not connected'));
    return new Promise((resolve, reject) => {
      this.#onLost = reject;
      start(connection, (error, result) => {
        this.#onLost = undefined;
        if (error) reject(error);
        else resolve(result);
      });
    });
  }

  /**
   * Runs the agent's statement, streaming its rows: keeps `maxRows`, counts up to the engine's
   * bound, then (for a read) kills the query; kills it too when the time limit passes.
   */
  private run(sql: string, kind: MysqlStatementKind, options: QueryOptions): Promise<RunResult> {
    const connection = this.#connection as Connection;
    const maxRows = Math.max(0, options.maxRows);
    const { countLimit } = this.host;
    const result: RunResult = { rows: [], total: 0, capped: false, timedOut: false };
    const kills: Promise<void>[] = [];
    return new Promise((resolve) => {
      let escalation: NodeJS.Timeout | undefined;
      const timer = setTimeout(() => {
        result.timedOut = true;
        kills.push(this.host.kill(this.#threadId, 'query'));
        escalation = setTimeout(() => {
          kills.push(this.host.kill(this.#threadId, 'connection'));
        }, this.host.killGraceMs);
      }, timerDelay(options.timeoutMs));
      let settled = false;
      const settle = () => {
        if (settled) return;
        settled = true;
        clearTimeout(timer);
        clearTimeout(escalation);
        this.#onLost = undefined;
        // A kill in flight must land before the session's next statement can start.
        void Promise.all(kills).then(() => resolve(result));
      };
      this.#onLost = (error) => {
        result.lost = error;
        settle();
      };
      const query = connection.query({ sql, rowsAsArray: true });
      query.on('fields', (fields: FieldPacket[] | undefined, index: number) => {
        if (!fields || index > 0 || result.columns) return;
        result.columns = fields.map((field) => field.name);
        result.columnTypes = fields.map(mysqlColumnType);
      });
      query.on('result', (row: unknown, index: number) => {
        if (index > 0) return;
        if (!Array.isArray(row)) {
          result.header = row as ResultSetHeader;
          return;
        }
        if (result.capped) return;
        result.total += 1;
        if (result.rows.length < maxRows) result.rows.push(row);
        else if (result.total > countLimit) {
          result.total -= 1;
          result.capped = true;
          if (kind === 'read') kills.push(this.host.kill(this.#threadId, 'query'));
        }
      });
      query.on('error', (error: QueryError) => {
        if (error.fatal) result.lost = error;
        else result.error ??= error;
        if (error.fatal) settle();
      });
      query.on('end', settle);
    });
  }

  private outcome(
    result: RunResult,
    kind: MysqlStatementKind,
    options: QueryOptions,
    durationMs: number,
  ): QueryOutcome {
    const { error } = result;
    const interrupted = error?.errno !== undefined && INTERRUPTED.has(error.errno);
    if (result.timedOut && (interrupted || (!error && kind === 'read')))
      return this.timeout(options, durationMs);
    if (error && !(interrupted && result.capped)) {
      return {
        kind: 'error',
        message: this.unmask(errorMessage(error)),
        ...(error.code ? { code: error.code } : {}),
        durationMs,
      };
    }
    if (result.columns) {
      return {
        kind: 'rows',
        columns: result.columns.map((column) => this.unmask(column)),
        columnTypes: result.columnTypes ?? [],
        rows: result.rows,
        totalRows: result.total,
        truncated: result.total > result.rows.length,
        ...(result.capped ? { totalRowsCapped: true } : {}),
        durationMs,
      };
    }
    const affected = kind === 'write' ? result.header?.affectedRows : undefined;
    return { kind: 'ok', ...(affected !== undefined ? { affectedRows: affected } : {}), durationMs };
  }

  private timeout(options: QueryOptions, durationMs: number, note = ''): QueryOutcome {
    return {
      kind: 'error',
      message: `query timed out after ${options.timeoutMs} ms${note}`,
      code: QUERY_ERROR.timeout,
      timedOut: true,
      durationMs,
    };
  }

  /** The connection died during the statement: the server is gone (throw) or the session starts over. */
  private async afterLoss(
    result: RunResult,
    options: QueryOptions,
    elapsed: () => number,
  ): Promise<QueryOutcome> {
    this.#lost ??= result.lost;
    const failure = await this.host.health();
    if (failure) throw failure;
    await this.recover();
    const note = '; the query did not stop, its connection was closed and the database reset to pristine';
    if (result.timedOut) return this.timeout(options, elapsed(), note);
    return {
      kind: 'error',
      message: `the connection to the server was lost (${errorMessage(result.lost as Error)}); the database was reset to pristine`,
      code: QUERY_ERROR.crashed,
      durationMs: elapsed(),
    };
  }
}
