import mysql, { type Connection } from 'mysql2';
import type { SqlStatement } from '../../dump/split-statements.js';
import { maskCells } from '../copy-name-mask.js';
import { errorOutcome, okOutcome, rowsOutcome, timedOutOutcome } from '../query-outcomes.js';
import { oneLineMessage, type QueryClock, ServerSession, type ServerSessionHost } from '../server-session.js';
import type { QueryOptions, QueryOutcome, SqlSession } from '../sql-engine.js';
import { checkMysqlStatement, type MysqlStatementCheck, type MysqlStatementKind } from './mysql-guard.js';
import { type MysqlFlavor, mysqlName } from './mysql-schema.js';
import type { MysqlSlot } from './mysql-slot.js';
import type { MysqlEndpoint } from './mysql-url.js';
import { mysqlTypeCast } from './mysql-values.js';
import { withMysql8GroupOrder } from './mysql8-group-order.js';
import { type MysqlRunResult, runMysqlStatement } from './run-mysql-statement.js';

/** What a session needs from its engine. */
export interface MysqlSessionHost extends ServerSessionHost<MysqlSlot> {
  readonly endpoint: MysqlEndpoint;
  readonly flavor: MysqlFlavor;
  readonly sqlMode: string;
  /**
   * The session is a copy's reference connection (its reader account, autocommit on so that no
   * transaction or metadata lock outlives a statement).
   */
  readonly isReference?: boolean;
  /**
   * Rebuilds a copy from its template: all of it, or (`touched`: lower-case names the session's
   * changing statements mentioned) only what may differ.
   */
  rebuild(slot: MysqlSlot, touched?: ReadonlySet<string>): Promise<void>;
}

/** ER_QUERY_INTERRUPTED (KILL QUERY), ER_STATEMENT_TIMEOUT (MariaDB), ER_QUERY_TIMEOUT (MySQL). */
const INTERRUPTED = new Set([1317, 1969, 3024]);
/** ER_PARSE_ERROR: the statement never ran. */
const PARSE_ERROR = 1064;

/**
 * A statement whose values may hold the database's name: it reads the catalogue (`DATABASE()`,
 * `SCHEMA()`, `information_schema`, `SHOW …`, `CURRENT_USER()`). Only their values are searched for the copy's name,
 * which a table of the task's data never holds.
 */
const NAMES_DATABASE = /database|schema|catalog|\bshow\b|user/i;

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
export class MysqlSession extends ServerSession<
  Connection,
  MysqlSlot,
  MysqlSessionHost,
  MysqlStatementCheck
> {
  protected readonly title = 'MySQL';
  protected readonly dialect = 'mysql' as const;
  protected readonly check = checkMysqlStatement;
  protected readonly renewalNotes = {
    timeout: '; the query did not stop, its connection was closed and the database reset to pristine',
    lost: 'the database was reset to pristine',
  };
  #pendingWrites = false;
  #rebuild = false;
  /** Lower-case names mentioned by the statements that may have changed the copy since the reset. */
  #touched = new Set<string>();

  private constructor(database: string, slot: MysqlSlot, host: MysqlSessionHost) {
    super(database, slot, host);
  }

  /** Connects to the copy with the copy's account. */
  static async open(database: string, slot: MysqlSlot, host: MysqlSessionHost): Promise<MysqlSession> {
    const session = new MysqlSession(database, slot, host);
    await session.connect();
    return session;
  }

  protected async execute(
    statement: SqlStatement,
    verdict: MysqlStatementCheck,
    options: QueryOptions,
    clock: QueryClock,
  ): Promise<QueryOutcome> {
    let text = verdict.use !== undefined ? `USE ${mysqlName(this.slot.database)}` : this.forCopy(statement);
    if (this.host.flavor === 'mariadb') text = withMysql8GroupOrder(text);
    const rebuildBefore = this.#rebuild;
    this.note(verdict.kind, verdict.names);
    const result = await runMysqlStatement(
      {
        connection: this.connection as Connection,
        countLimit: this.host.countLimit,
        killGraceMs: this.host.killGraceMs,
        interrupt: (how) => this.host.interrupt(this.backendId, how),
        watchLoss: (listener) => this.watchLoss(listener),
      },
      text,
      verdict.kind,
      options,
    );
    if (result.lost) return this.afterLoss(result.lost, result.timedOut, options, clock.elapsed);
    if (result.error?.errno === PARSE_ERROR && verdict.kind === 'other') this.#rebuild = rebuildBefore;
    return this.outcome(result, verdict.kind, options, clock.elapsed(), NAMES_DATABASE.test(text));
  }

  protected async renew(): Promise<void> {
    await this.command((connection, done) => connection.reset(done));
    if (this.#rebuild) await this.host.rebuild(this.slot, this.#touched);
    await this.setup(this.#rebuild);
    if (this.#pendingWrites) await this.restoreAutoIncrements();
    this.recovered();
  }

  /** The copy's reference connection: its reader account, read-only rights, autocommit on. */
  protected openReference(): Promise<SqlSession> {
    const { user, password } = this.slot.reader;
    return MysqlSession.open(
      this.database,
      { ...this.slot, user, password },
      { ...this.host, isReference: true, release: () => {}, rebuild: async () => {} },
    );
  }

  /** Only reads since the reset: no rebuild, no AUTO_INCREMENT to set back (the reset is the connection's own). */
  protected copyUnchanged(): boolean {
    return !this.#rebuild && !this.#pendingWrites;
  }

  protected override renewCopy(): Promise<void> {
    return this.host.rebuild(this.slot);
  }

  protected override recovered(): void {
    this.#rebuild = false;
    this.#pendingWrites = false;
    this.#touched.clear();
  }

  protected override closing(): void {
    if (this.#rebuild || this.#pendingWrites || this.lost) this.slot.dirty = true;
  }

  protected createConnection(): Connection {
    return mysql.createConnection({
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
  }

  protected openConnection(connection: Connection): Promise<void> {
    return new Promise<void>((resolve, reject) =>
      connection.connect((error) => (error ? reject(error) : resolve())),
    );
  }

  protected backendIdOf(connection: Connection): number {
    return connection.threadId ?? 0;
  }

  protected async closeConnection(connection: Connection): Promise<void> {
    await new Promise<void>((resolve) => {
      connection.end(() => resolve());
      setTimeout(resolve, 1_000).unref();
    });
    connection.destroy();
  }

  protected discardConnection(connection: Connection): void {
    connection.destroy();
  }

  /**
   * The settings, then a statement that sets `FOUND_ROWS()` to 0: MariaDB hands a new connection a
   * cached server thread that keeps the last row count of the connection that used it before
   * (another session's, or a reference connection's gold).
   */
  protected async started(): Promise<void> {
    await this.setup(false);
    await this.simple('SELECT 1 FROM DUAL WHERE 0');
  }

  /** Records what a statement may change, before it runs. */
  private note(kind: MysqlStatementKind, names: readonly string[]): void {
    if (kind === 'read') return;
    for (const name of names) this.#touched.add(name);
    if (kind === 'write') this.#pendingWrites = true;
    else if (kind === 'other') this.#rebuild = true;
    else if (kind === 'commit' && this.#pendingWrites) this.#rebuild = true;
  }

  protected accounts(): readonly string[] {
    return [this.slot.user, this.slot.reader.user];
  }

  /** The session settings (again after `COM_RESET_CONNECTION`, which restores the server's defaults). */
  private async setup(use: boolean): Promise<void> {
    const settings = [
      'NAMES utf8mb4 COLLATE utf8mb4_general_ci',
      `SESSION sql_mode = '${this.host.sqlMode.replaceAll("'", "''")}'`,
      "time_zone = '+00:00'",
      this.host.isReference ? 'autocommit = 1' : 'autocommit = 0',
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
    return this.request(
      (connection) =>
        new Promise<T | undefined>((resolve, reject) =>
          start(connection, (error, result) => (error ? reject(error) : resolve(result))),
        ),
    );
  }

  /** `namesDatabase`: the statement may return the database's name in its values (see `NAMES_DATABASE`). */
  private outcome(
    result: MysqlRunResult,
    kind: MysqlStatementKind,
    options: QueryOptions,
    durationMs: number,
    namesDatabase: boolean,
  ): QueryOutcome {
    const { error } = result;
    const interrupted = error?.errno !== undefined && INTERRUPTED.has(error.errno);
    if (result.timedOut && (interrupted || (!error && kind === 'read')))
      return timedOutOutcome(options.timeoutMs, durationMs);
    if (error && !(interrupted && result.capped)) {
      return errorOutcome(this.asOwn(oneLineMessage(error)), error.code, durationMs);
    }
    if (result.columns) {
      const columns = result.columns.map((column) => this.asOwn(column));
      if (namesDatabase) maskCells(result.rows, (text) => this.asOwn(text));
      return rowsOutcome({ ...result, columns, columnTypes: result.columnTypes ?? [] }, durationMs);
    }
    return okOutcome(kind === 'write' ? result.header?.affectedRows : undefined, durationMs);
  }
}
