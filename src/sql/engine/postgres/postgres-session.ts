import pg from 'pg';
import {
  answerMysqlIntrospection,
  limitIntrospectionRows,
} from '../../introspection/answer-mysql-introspection.js';
import {
  type IntrospectionStatement,
  recognizeMysqlIntrospection,
} from '../../introspection/recognize-mysql-introspection.js';
import { doubleQuotedAsString } from '../double-quoted-as-string.js';
import { singleStatement } from '../single-statement.js';
import { QUERY_ERROR, type QueryOptions, type QueryOutcome, type SqlSession } from '../sql-engine.js';
import { SqlEngineError, sessionFailure } from '../sql-engine-error.js';
import { PostgresCatalogue, type PostgresPristineSchema } from './postgres-catalogue.js';
import { UNDEFINED_COLUMN, unresolvedColumn } from './postgres-double-quoted.js';
import { checkPostgresStatement } from './postgres-guard.js';
import type { PostgresEndpoint } from './postgres-url.js';
import { isBuiltinType, postgresTypeName, postgresTypes } from './postgres-values.js';

/**
 * The delay of a time-limit timer. Node fires timers longer than 2^31 - 1 ms (and `Infinity`) after
 * 1 ms, so an unlimited or very long limit gets the longest delay Node keeps (24.8 days).
 */
function timerDelay(timeoutMs: number): number {
  return Math.min(Math.max(0, timeoutMs), 2 ** 31 - 1);
}

/** One session copy of a database: its database, its role, and how to make it pristine again. */
export interface PostgresSlot {
  /** The copy's database name on the server. */
  readonly database: string;
  readonly role: string;
  readonly password: string;
  /** `SELECT setval(…)` of every sequence of the template (they are not transactional), or ''. */
  readonly sequenceReset: string;
}

/** What a session needs from its engine. */
export interface PostgresSessionHost {
  /** Where the server is (the session connects as its slot's role to its slot's database). */
  readonly endpoint: Omit<PostgresEndpoint, 'user' | 'password' | 'database'>;
  readonly countLimit: number;
  readonly killGraceMs: number;
  /** `"x"` that names no column reads as the string `'x'` (see `postgres-double-quoted.ts`). */
  readonly doubleQuotedStrings: boolean;
  failure(): SqlEngineError | undefined;
  health(): Promise<SqlEngineError | undefined>;
  /** `pg_cancel_backend` or `pg_terminate_backend` of a session's backend, from an administrator connection. */
  signal(pid: number, what: 'cancel' | 'terminate'): Promise<void>;
  release(session: PostgresSession, slot: PostgresSlot): void;
}

/** Rewrites of one query for double-quoted strings (one per distinct unresolved name). */
const MAX_REWRITES = 64;

/** SQLSTATE of a cancelled statement. */
const QUERY_CANCELED = '57014';
/** DECLARE refuses data-modifying WITH (feature not supported): run the statement directly. */
const NOT_A_CURSOR = new Set(['0A000']);

const SAVEPOINT = 'ic_statement';
const CURSOR = 'ic_rows';
/**
 * Ends a statement that succeeded and opens the savepoint of the next one, in the same round trip:
 * between statements the savepoint is always open, so running a statement costs two round trips.
 */
const NEXT_STATEMENT = `RELEASE SAVEPOINT ${SAVEPOINT}; SAVEPOINT ${SAVEPOINT}`;

interface PgError extends Error {
  code?: string;
}

/** The result of running one statement, before it becomes an outcome. */
interface RunResult {
  fields?: pg.FieldDef[];
  rows: unknown[][];
  total: number;
  capped: boolean;
  command?: string;
  rowCount?: number | null;
  error?: PgError;
  lost?: Error;
  timedOut: boolean;
}

/** A catalogue query that ran out of time (the statement's limit) or lost its connection. */
class CatalogueInterrupted extends Error {
  constructor(readonly result: RunResult) {
    super('the catalogue query was interrupted');
  }
}

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
 * not transactional): three round trips, well under a millisecond, whatever ran.
 *
 * Queries a cursor can run are declared as a cursor: `FETCH` returns at most `maxRows` rows and
 * `MOVE` counts the rest on the server up to the engine's bound, so a 10-million-row result costs
 * a count, not a transfer. Other statements run directly (extended protocol: one statement only).
 * The time limit cancels the backend's statement (`pg_cancel_backend` from an administrator
 * connection); `pg_terminate_backend` follows if it still runs 2 s later (the session then starts
 * over on a new connection, pristine).
 *
 * MySQL's introspection statements (`SHOW TABLES`, `DESCRIBE t`, `SHOW COLUMNS FROM t`, …: see
 * `answer-mysql-introspection.ts`) never reach PostgreSQL as such: they are answered from the dump model
 * and the session's current catalogue (`PostgresCatalogue`, read-only queries run like any
 * statement, in the episode's transaction, each in its savepoint), within the same time limit.
 * `EXPLAIN SELECT …` and other `SHOW` statements (PostgreSQL's `SHOW setting`) go to PostgreSQL.
 */
export class PostgresSession implements SqlSession {
  #client: pg.Client | undefined;
  #pid = 0;
  #lost: Error | undefined;
  #onLost: ((error: Error) => void) | undefined;
  #closed = false;
  /** Names of types outside pg's built-in table (`citext`, types the session made), by OID. */
  readonly #typeNames = new Map<number, string>();

  private constructor(
    readonly database: string,
    private readonly slot: PostgresSlot,
    private readonly host: PostgresSessionHost,
    private readonly schema: PostgresPristineSchema,
  ) {}

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
    if (this.#lost || !this.#client) await this.recover();
    const check = singleStatement(sql, 'postgres');
    if (!check.ok) return { kind: 'error', message: check.message, code: check.code, durationMs: elapsed() };
    const verdict = checkPostgresStatement(check.statement);
    if (verdict.refusal) {
      return { kind: 'error', message: verdict.refusal, code: QUERY_ERROR.forbidden, durationMs: elapsed() };
    }
    if (verdict.use !== undefined) {
      const target = verdict.use.toLowerCase();
      if (target === this.database.toLowerCase() || target === this.slot.database) {
        return { kind: 'ok', durationMs: elapsed() };
      }
      return {
        kind: 'error',
        message: `USE ${verdict.use} is not allowed: this session works on database ${this.database} only`,
        code: QUERY_ERROR.forbidden,
        durationMs: elapsed(),
      };
    }
    const introspection = recognizeMysqlIntrospection(check.statement.tokens);
    if (introspection && introspection.kind !== 'unsupported')
      return this.introspect(introspection, options, started, elapsed);
    let text = check.statement.text;
    for (let attempt = 0; ; attempt++) {
      const result = await this.run(text, verdict.cursor, options);
      if (result.lost) return this.afterLoss(result, options, elapsed);
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
      return this.outcome(result, options, elapsed());
    }
  }

  /** Answers a MySQL introspection statement from the dump model and the session's current catalogue. */
  private async introspect(
    statement: IntrospectionStatement,
    options: QueryOptions,
    started: number,
    elapsed: () => number,
  ): Promise<QueryOutcome> {
    const deadline = started + Math.max(0, options.timeoutMs);
    const catalogue = new PostgresCatalogue(this.schema, (sql) => this.catalogueRows(sql, deadline));
    try {
      const outcome = await answerMysqlIntrospection(statement, catalogue, { lowerCaseTableNames: true });
      return { ...limitIntrospectionRows(outcome, Math.max(0, options.maxRows)), durationMs: elapsed() };
    } catch (error) {
      if (!(error instanceof CatalogueInterrupted)) throw error;
      if (error.result.lost) return this.afterLoss(error.result, options, elapsed);
      return this.timeout(options, elapsed());
    }
  }

  /** Rows of a read-only catalogue query, run like a statement (its own savepoint, the time left). */
  private async catalogueRows(sql: string, deadline: number): Promise<unknown[][]> {
    const timeoutMs = deadline - performance.now();
    if (timeoutMs <= 0) throw new CatalogueInterrupted({ rows: [], total: 0, capped: false, timedOut: true });
    const result = await this.run(sql, false, { timeoutMs, maxRows: Number.POSITIVE_INFINITY });
    if (result.lost) throw new CatalogueInterrupted(result);
    if (result.timedOut && result.error?.code === QUERY_CANCELED) throw new CatalogueInterrupted(result);
    if (result.error) throw new Error(`introspection failed: ${oneLine(result.error.message)}`);
    return result.rows;
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
    return sessionFailure(error, () => this.host.health(), `the PostgreSQL session on ${this.database}`);
  }

  private async resetNow(): Promise<void> {
    if (this.#lost || !this.#client) {
      await this.recover();
      return;
    }
    try {
      await this.simple('ROLLBACK');
      await this.simple('DISCARD ALL');
      await this.begin();
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
    const client = this.#client;
    this.#client = undefined;
    if (client) {
      await Promise.race([
        client.end().catch(() => {}),
        new Promise((resolve) => setTimeout(resolve, 1_000).unref()),
      ]);
    }
    // Closing the connection rolled the episode back; sequences are set back by the next `begin`.
    if (!this.host.failure()) this.host.release(this, this.slot);
  }

  private assertUsable(): void {
    if (this.#closed) {
      throw new SqlEngineError('SQL_SESSION_CLOSED', `the PostgreSQL session on ${this.database} is closed`);
    }
    const failure = this.host.failure();
    if (failure) throw failure;
  }

  private async connect(): Promise<void> {
    const client = new pg.Client({
      ...this.host.endpoint,
      user: this.slot.role,
      password: this.slot.password,
      database: this.slot.database,
      types: postgresTypes,
      options: '-c timezone=UTC -c client_min_messages=error',
      connectionTimeoutMillis: 10_000,
    });
    const lost = (error: Error) => {
      if (this.#client !== client) return;
      this.#lost ??= error;
      this.#onLost?.(error);
    };
    client.on('error', lost);
    client.on('end', () => lost(new Error('the server closed the connection')));
    this.#client = client;
    try {
      await client.connect();
    } catch (error) {
      this.#client = undefined;
      throw error;
    }
    this.#lost = undefined;
    this.#pid = (client as unknown as { processID: number }).processID;
    await this.begin();
  }

  /** Opens the episode's transaction and sets the sequences back to the template's values. */
  private async begin(): Promise<void> {
    const sequences = this.slot.sequenceReset ? `${this.slot.sequenceReset}; ` : '';
    await this.simple(`BEGIN; ${sequences}SAVEPOINT ${SAVEPOINT}`);
  }

  /** A new connection (the old one failed while the server lives): the database is pristine again. */
  private async recover(): Promise<void> {
    const failure = await this.host.health();
    if (failure) throw failure;
    const old = this.#client;
    this.#client = undefined;
    old?.end().catch(() => {});
    await this.connect();
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
    const client = this.#client;
    if (!client || this.#lost) return Promise.reject(this.#lost ?? new Error('not connected'));
    return new Promise((resolve, reject) => {
      this.#onLost = reject;
      (client.query(config as pg.QueryArrayConfig) as Promise<pg.QueryResult | pg.QueryResult[]>).then(
        (result) => {
          this.#onLost = undefined;
          resolve(result);
        },
        (error: unknown) => {
          this.#onLost = undefined;
          reject(error);
        },
      );
    });
  }

  private async run(sql: string, cursor: boolean, options: QueryOptions): Promise<RunResult> {
    const result: RunResult = { rows: [], total: 0, capped: false, timedOut: false };
    const signals: Promise<void>[] = [];
    let escalation: NodeJS.Timeout | undefined;
    const timer = setTimeout(() => {
      result.timedOut = true;
      signals.push(this.host.signal(this.#pid, 'cancel'));
      escalation = setTimeout(
        () => signals.push(this.host.signal(this.#pid, 'terminate')),
        this.host.killGraceMs,
      );
    }, timerDelay(options.timeoutMs));
    try {
      let declared = false;
      if (cursor) {
        try {
          await this.extended(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${sql}`);
          declared = true;
        } catch (error) {
          if (!NOT_A_CURSOR.has((error as PgError).code ?? '')) throw error;
          await this.simple(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
        }
      }
      if (declared) await this.fetch(options, result);
      else {
        const direct = await this.extended(sql);
        await this.simple(NEXT_STATEMENT);
        this.direct(direct, options, result);
      }
    } catch (error) {
      if (this.#lost) result.lost = this.#lost;
      else {
        result.error = error as PgError;
        await this.simple(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`).catch((rollback: unknown) => {
          result.lost = this.#lost ?? (rollback as Error);
        });
      }
    } finally {
      clearTimeout(timer);
      clearTimeout(escalation);
      // A signal in flight must land before the session's next statement can start.
      await Promise.all(signals);
    }
    if (result.fields && !result.lost) await this.learnTypes(result.fields);
    return result;
  }

  /** FETCH the rows wanted, MOVE over the rest (counting), CLOSE, RELEASE: one round trip. */
  private async fetch(options: QueryOptions, result: RunResult): Promise<void> {
    const { countLimit } = this.host;
    const finite = Number.isFinite(options.maxRows);
    const maxRows = finite ? Math.max(0, Math.floor(options.maxRows)) : 0;
    const move = Math.max(1, countLimit + 1 - maxRows);
    const steps = finite
      ? [`FETCH FORWARD ${maxRows} FROM ${CURSOR}`, `MOVE FORWARD ${move} IN ${CURSOR}`]
      : [`FETCH ALL FROM ${CURSOR}`];
    const replies = (await this.simple(
      [...steps, `CLOSE ${CURSOR}`, NEXT_STATEMENT].join('; '),
    )) as pg.QueryResult[];
    const fetched = replies[0] as pg.QueryResult;
    result.fields = fetched.fields;
    result.rows = fetched.rows as unknown[][];
    result.command = 'SELECT';
    result.total = result.rows.length;
    if (finite && result.rows.length === maxRows) {
      const moved = (replies[1] as pg.QueryResult).rowCount ?? 0;
      result.total = maxRows + moved;
      if (result.total > Math.max(countLimit, maxRows)) {
        result.total -= 1;
        result.capped = true;
      }
    }
  }

  /** A statement run directly: rows kept and counted in memory like the cursor would. */
  private direct(reply: pg.QueryResult, options: QueryOptions, result: RunResult): void {
    result.command = reply.command;
    result.rowCount = reply.rowCount;
    if (reply.fields.length === 0 && reply.command !== 'SELECT') return;
    const rows = reply.rows as unknown[][];
    const bound = Math.max(this.host.countLimit, Number.isFinite(options.maxRows) ? options.maxRows : 0);
    result.fields = reply.fields;
    result.rows = Number.isFinite(options.maxRows) ? rows.slice(0, Math.max(0, options.maxRows)) : rows;
    result.total = Number.isFinite(options.maxRows) ? Math.min(rows.length, bound) : rows.length;
    result.capped = Number.isFinite(options.maxRows) && rows.length > bound;
  }

  /** Names of the result's types that pg's table does not know (`citext`), from `pg_type`. */
  private async learnTypes(fields: readonly pg.FieldDef[]): Promise<void> {
    const unknown = [...new Set(fields.map((field) => field.dataTypeID))].filter(
      (oid) => !isBuiltinType(oid) && !this.#typeNames.has(oid),
    );
    if (unknown.length === 0) return;
    const lookup = `SELECT oid::int8, typname::text FROM pg_catalog.pg_type WHERE oid IN (${unknown.join(', ')})`;
    try {
      const replies = (await this.simple(
        `SAVEPOINT ic_types; ${lookup}; RELEASE SAVEPOINT ic_types`,
      )) as pg.QueryResult[];
      for (const [oid, name] of (replies[1]?.rows ?? []) as [bigint, string][])
        this.#typeNames.set(Number(oid), name);
    } catch {
      await this.simple('ROLLBACK TO SAVEPOINT ic_types').catch(() => {});
    }
  }

  private outcome(result: RunResult, options: QueryOptions, durationMs: number): QueryOutcome {
    const { error } = result;
    if (error) {
      if (result.timedOut && error.code === QUERY_CANCELED) return this.timeout(options, durationMs);
      return {
        kind: 'error',
        message: oneLine(error.message),
        ...(error.code ? { code: error.code } : {}),
        durationMs,
      };
    }
    if (result.fields) {
      return {
        kind: 'rows',
        columns: result.fields.map((field) => field.name),
        columnTypes: result.fields.map((field) => postgresTypeName(field.dataTypeID, this.#typeNames)),
        rows: result.rows,
        totalRows: result.total,
        truncated: result.total > result.rows.length,
        ...(result.capped ? { totalRowsCapped: true } : {}),
        durationMs,
      };
    }
    const dml = ['INSERT', 'UPDATE', 'DELETE', 'MERGE'].includes(result.command ?? '');
    const affected = dml && typeof result.rowCount === 'number' ? result.rowCount : undefined;
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
    if (result.timedOut) {
      return this.timeout(
        options,
        elapsed(),
        '; the query did not stop, its connection was closed and the database is pristine again',
      );
    }
    return {
      kind: 'error',
      message: `the connection to the server was lost (${oneLine((result.lost as Error).message)}); the database is pristine again`,
      code: QUERY_ERROR.crashed,
      durationMs: elapsed(),
    };
  }
}
