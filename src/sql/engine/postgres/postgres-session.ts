import pg from 'pg';
import type { SqlStatement } from '../../dump/split-statements.js';
import {
  answerMysqlIntrospection,
  limitIntrospectionRows,
} from '../../introspection/answer-mysql-introspection.js';
import {
  type IntrospectionStatement,
  recognizeMysqlIntrospection,
} from '../../introspection/recognize-mysql-introspection.js';
import { maskCells } from '../copy-name-mask.js';
import { doubleQuotedAsString } from '../double-quoted-as-string.js';
import { errorOutcome, okOutcome, rowsOutcome, timedOutOutcome } from '../query-outcomes.js';
import { type QueryClock, ServerSession, type ServerSessionHost } from '../server-session.js';
import type { QueryOptions, QueryOutcome, SqlSession } from '../sql-engine.js';
import { PostgresCatalogue, type PostgresPristineSchema } from './postgres-catalogue.js';
import { UNDEFINED_COLUMN, unresolvedColumn } from './postgres-double-quoted.js';
import { checkPostgresStatement, type PostgresStatementCheck } from './postgres-guard.js';
import {
  CatalogueInterrupted,
  type PostgresRunResult,
  PostgresStatementRunner,
  QUERY_CANCELED,
} from './postgres-statement-runner.js';
import type { PostgresEndpoint } from './postgres-url.js';
import { postgresTypeName, postgresTypes } from './postgres-values.js';
import { unnameableDoubleQuoted } from './unnameable-double-quoted.js';

/**
 * A statement whose values may hold the database's name: it reads the catalogue (`current_database()`,
 * `current_catalog`, `information_schema`, the `pg_` views, `current_user`). Only their values are searched for the
 * copy's name, which a table of the task's data never holds.
 */
const NAMES_DATABASE = /current_database|current_catalog|information_schema|pg_|catalog|user|role/i;
/** One session copy of a database: its database, its role, and how to make it pristine again. */
export interface PostgresSlot {
  /** The copy's database name on the server. */
  readonly database: string;
  readonly role: string;
  readonly password: string;
  /** The copy's reader role (read-only transactions): the reference connection's. */
  readonly reader: { readonly role: string; readonly password: string };
  /** `SELECT setval(…)` of every sequence of the template (they are not transactional), or ''. */
  readonly sequenceReset: string;
  /** The copy must be made anew from its template before a session uses it. */
  stale?: boolean;
}

/** SQLSTATE `disk_full`: the server's store is full. */
const DISK_FULL = '53100';

/** What a session needs from its engine. */
export interface PostgresSessionHost extends ServerSessionHost<PostgresSlot> {
  /** Where the server is (the session connects as its slot's role to its slot's database). */
  readonly endpoint: Omit<PostgresEndpoint, 'user' | 'password' | 'database'>;
  /** `"x"` that names no column reads as the string `'x'` (see `postgres-double-quoted.ts`). */
  readonly doubleQuotedStrings: boolean;
  /**
   * The session is a copy's reference connection: its reader role, every statement in a read-only
   * transaction of its own (ended at once, so that no lock outlives it), no sequences to set back.
   */
  readonly isReference?: boolean;
  /** Bytes the copy may take before a reset makes it anew (`recreate`). */
  readonly copyBytes: number;
  /** Drops the copy, ending its connections, and makes it again from its template. */
  recreate(): Promise<void>;
}

/**
 * How a statement of the reference connection ends: its transaction rolled back (it only read) and
 * the next opened, in the round trip that ends any statement, so that none of its locks outlives it.
 */
const REFERENCE_STATEMENT_END = `ROLLBACK; BEGIN; SAVEPOINT ${PostgresStatementRunner.savepoint}`;

/**
 * The reset after statements that all ran as cursors (reads), in one round trip: the rollback
 * undoes what a query's functions changed in the transaction (settings by `set_config`, large
 * objects, notifications); the session state a read can leave outside it is the sequences' `currval`
 * (`nextval` in a query), dropped here, the sequences themselves being set back by the `BEGIN` that
 * follows. What else `DISCARD ALL` clears (prepared statements, cursors held past a commit, temporary
 * tables, `LISTEN`, session settings) only statements that are no cursor make, and those take the
 * full reset. Session advisory locks are revoked from every session role.
 */
const READ_ONLY_RESET = 'ROLLBACK; DISCARD SEQUENCES; ';

/** Rewrites of one query for double-quoted strings (one per distinct unresolved name). */
const MAX_REWRITES = 64;

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/**
 * A session on its own copy of one database (see `PostgresEngine`), as its own role.
 *
 * The whole episode is one transaction (PostgreSQL's DDL is transactional), opened at connect and
 * after every reset. Each statement runs inside a savepoint, so a failing statement is undone
 * alone (`ROLLBACK TO SAVEPOINT`) and the episode goes on, as in autocommit mode; the
 * agent's own transaction control is refused. A reset is `ROLLBACK`, `DISCARD ALL` (prepared
 * statements, advisory locks, settings), `BEGIN`, and sequences set back (`setval`: sequences are
 * not transactional): three round trips, well under a millisecond; one round trip when every
 * statement since the last reset only read (`READ_ONLY_RESET`).
 *
 * Statements run as `PostgresStatementRunner` says (a cursor where one can run them, so that a
 * 10-million-row result costs a count, not a transfer). The time limit cancels the backend's
 * statement (`pg_cancel_backend` from an administrator connection); `pg_terminate_backend` follows
 * if it still runs 2 s later (the session then starts over on a new connection, pristine).
 *
 * MySQL's introspection statements (`SHOW TABLES`, `DESCRIBE t`, `SHOW COLUMNS FROM t`, …: see
 * `docs/architecture/sql-engines.md`) never reach PostgreSQL as such: they are answered from the
 * dump model and the session's current catalogue (`PostgresCatalogue`, read-only queries run like
 * any statement, in the episode's transaction, each in its savepoint), within the same time limit.
 * `EXPLAIN SELECT …` and other `SHOW` statements (PostgreSQL's `SHOW setting`) go to PostgreSQL.
 */
export class PostgresSession extends ServerSession<
  pg.Client,
  PostgresSlot,
  PostgresSessionHost,
  PostgresStatementCheck
> {
  protected readonly title = 'PostgreSQL';
  protected readonly dialect = 'postgres' as const;
  protected readonly check = checkPostgresStatement;
  protected readonly renewalNotes = {
    timeout: '; the query did not stop, its connection was closed and the database is pristine again',
    lost: 'the database is pristine again',
  };
  readonly #runner = new PostgresStatementRunner({
    countLimit: () => this.host.countLimit,
    killGraceMs: () => this.host.killGraceMs,
    interrupt: (how) => this.host.interrupt(this.backendId, how),
    lost: () => this.lost,
    ...(this.host.isReference ? { statementEnd: REFERENCE_STATEMENT_END } : {}),
    simple: (sql) => this.simple(sql),
    extended: (sql) => this.extended(sql),
  });

  /** A statement since the reset may have written (rolled-back rows stay in the copy's files). */
  #wrote = false;
  /** The copy must be made anew at the reset (it filled the store, or grew past `copyBytes`). */
  #recreate = false;
  #names: Set<string> | undefined;

  private constructor(
    database: string,
    slot: PostgresSlot,
    host: PostgresSessionHost,
    private readonly schema: PostgresPristineSchema,
  ) {
    super(database, slot, host);
  }

  static async open(
    database: string,
    slot: PostgresSlot,
    host: PostgresSessionHost,
    /** The dump model of the database's tables, for introspection (none: the catalogue only). */
    schema: PostgresPristineSchema = { database, tables: new Map() },
  ): Promise<PostgresSession> {
    const session = new PostgresSession(database, slot, host, schema);
    await session.connect();
    return session;
  }

  protected async execute(
    statement: SqlStatement,
    verdict: PostgresStatementCheck,
    options: QueryOptions,
    clock: QueryClock,
  ): Promise<QueryOutcome> {
    if (verdict.use !== undefined) return okOutcome(undefined, clock.elapsed());
    const introspection = recognizeMysqlIntrospection(statement.tokens);
    if (introspection && introspection.kind !== 'unsupported')
      return this.introspect(introspection, options, clock);
    let text = this.forCopy(statement);
    if (!verdict.cursor) this.#wrote = true;
    else if (this.host.doubleQuotedStrings && !this.#wrote && this.schema.tables.size > 0) {
      text = unnameableDoubleQuoted(text, this.#pristineNames()) ?? text;
    }
    for (let attempt = 0; ; attempt++) {
      const result = await this.#runner.run(text, verdict.cursor, options);
      if (result.lost) return this.afterLoss(result.lost, result.timedOut, options, clock.elapsed);
      if (
        result.error?.code === UNDEFINED_COLUMN &&
        this.host.doubleQuotedStrings &&
        attempt < MAX_REWRITES
      ) {
        const name = unresolvedColumn(result.error.message);
        const rewritten = name === undefined ? undefined : doubleQuotedAsString(text, name, 'postgres');
        if (rewritten !== undefined) {
          text = rewritten;
          continue;
        }
      }
      return this.outcome(result, options, clock.elapsed(), NAMES_DATABASE.test(text));
    }
  }

  /** The pristine database's table and column names, lower case (see `unnameableDoubleQuoted`). */
  #pristineNames(): ReadonlySet<string> {
    if (!this.#names) {
      this.#names = new Set(this.schema.tables.keys());
      // The columns as the engine built them (names folded to lower case).
      for (const table of this.schema.tables.values()) {
        for (const column of table.columns) this.#names.add(column.name);
      }
    }
    return this.#names;
  }

  /**
   * Rolls the episode back. Rows written and rolled back stay in the copy's files (no vacuum), so
   * after an episode that may have written, the copy's size is checked, and a copy that grew past
   * its bound or filled the store is made anew from its template (tens of milliseconds).
   */
  protected async renew(): Promise<void> {
    if (!this.#wrote && !this.#recreate) {
      await this.begin(READ_ONLY_RESET);
      return;
    }
    await this.simple('ROLLBACK');
    await this.simple('DISCARD ALL');
    if (this.#wrote && !this.#recreate) {
      const reply = (await this.simple(
        'SELECT pg_database_size(current_database())::float8',
      )) as pg.QueryResult;
      if (Number((reply.rows[0] as unknown[] | undefined)?.[0]) > this.host.copyBytes) this.#recreate = true;
    }
    this.#wrote = false;
    if (this.#recreate) await this.recover();
    else await this.begin();
  }

  /**
   * Only cursor statements (reads) since the reset: the episode's transaction holds no write, and
   * the reset neither measures nor makes the copy anew.
   */
  protected copyUnchanged(): boolean {
    return !this.#wrote && !this.#recreate;
  }

  protected override async renewCopy(): Promise<void> {
    if (!this.#recreate) return;
    this.#recreate = false;
    this.#wrote = false;
    await this.host.recreate();
  }

  protected override closing(): void {
    if (this.#wrote || this.#recreate) this.slot.stale = true;
  }

  /** The copy's reference connection, as its reader role. */
  protected openReference(): Promise<SqlSession> {
    const { role, password } = this.slot.reader;
    return PostgresSession.open(
      this.database,
      { ...this.slot, role, password, sequenceReset: '' },
      {
        ...this.host,
        isReference: true,
        release: () => {},
        copyBytes: Number.POSITIVE_INFINITY,
        recreate: async () => {},
      },
      this.schema,
    );
  }

  protected createConnection(): pg.Client {
    return new pg.Client({
      ...this.host.endpoint,
      user: this.slot.role,
      password: this.slot.password,
      database: this.slot.database,
      types: postgresTypes,
      options: '-c timezone=UTC -c client_min_messages=error',
      connectionTimeoutMillis: 10_000,
    });
  }

  protected async openConnection(client: pg.Client): Promise<void> {
    await client.connect();
  }

  protected backendIdOf(client: pg.Client): number {
    return (client as unknown as { processID: number }).processID;
  }

  /** Closing the connection rolls the episode back; sequences are set back by the next `begin`. */
  protected async closeConnection(client: pg.Client): Promise<void> {
    await Promise.race([
      client.end().catch(() => {}),
      new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
    ]);
  }

  protected discardConnection(client: pg.Client): void {
    client.end().catch(() => {});
  }

  protected started(): Promise<void> {
    return this.begin();
  }

  /** Answers a MySQL introspection statement from the dump model and the session's current catalogue. */
  private async introspect(
    statement: IntrospectionStatement,
    options: QueryOptions,
    clock: QueryClock,
  ): Promise<QueryOutcome> {
    const deadline = clock.started + Math.max(0, options.timeoutMs);
    const catalogue = new PostgresCatalogue(this.schema, (sql) => this.#runner.catalogueRows(sql, deadline));
    try {
      const outcome = await answerMysqlIntrospection(statement, catalogue, { lowerCaseTableNames: true });
      return {
        ...limitIntrospectionRows(outcome, Math.max(0, options.maxRows)),
        durationMs: clock.elapsed(),
      };
    } catch (error) {
      if (!(error instanceof CatalogueInterrupted)) throw error;
      const { result } = error;
      if (result.lost) return this.afterLoss(result.lost, result.timedOut, options, clock.elapsed);
      return timedOutOutcome(options.timeoutMs, clock.elapsed());
    }
  }

  /**
   * Opens the episode's transaction and sets the sequences back to the template's values, after
   * `before` (statements in the same round trip).
   */
  private async begin(before = ''): Promise<void> {
    const sequences = this.slot.sequenceReset ? `${this.slot.sequenceReset}; ` : '';
    await this.simple(`${before}BEGIN; ${sequences}SAVEPOINT ${PostgresStatementRunner.savepoint}`);
  }

  /** Runs one of the session's own statements (simple protocol, several allowed). */
  private simple(sql: string): Promise<pg.QueryResult | pg.QueryResult[]> {
    return this.send({ text: sql, rowMode: 'array' });
  }

  /** Runs the agent's statement (extended protocol: exactly one statement). */
  private extended(sql: string): Promise<pg.QueryResult> {
    return this.send({ text: sql, rowMode: 'array', queryMode: 'extended' }) as Promise<pg.QueryResult>;
  }

  private send(
    config: pg.QueryArrayConfig & { queryMode?: 'extended' },
  ): Promise<pg.QueryResult | pg.QueryResult[]> {
    return this.request(
      (client) => client.query(config as pg.QueryArrayConfig) as Promise<pg.QueryResult | pg.QueryResult[]>,
    );
  }

  protected accounts(): readonly string[] {
    return [this.slot.role, this.slot.reader.role];
  }

  /** `namesDatabase`: the statement may return the database's name in its values (see `NAMES_DATABASE`). */
  private outcome(
    result: PostgresRunResult,
    options: QueryOptions,
    durationMs: number,
    namesDatabase: boolean,
  ): QueryOutcome {
    const { error } = result;
    if (error) {
      if (error.code === DISK_FULL) this.#recreate = true;
      if (result.timedOut && error.code === QUERY_CANCELED)
        return timedOutOutcome(options.timeoutMs, durationMs);
      return errorOutcome(this.asOwn(oneLine(error.message)), error.code, durationMs);
    }
    if (result.fields) {
      const columns = result.fields.map((field) => this.asOwn(field.name));
      if (namesDatabase) maskCells(result.rows, (text) => this.asOwn(text));
      const columnTypes = result.fields.map((field) =>
        postgresTypeName(field.dataTypeID, this.#runner.typeNames),
      );
      return rowsOutcome({ ...result, columns, columnTypes }, durationMs);
    }
    const dml = ['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(result.command ?? '');
    return okOutcome(dml && typeof result.rowCount === 'number' ? result.rowCount : undefined, durationMs);
  }
}
