import type pg from 'pg';
import type { Interruption } from '../server-session.js';
import type { QueryOptions } from '../sql-engine.js';
import { StatementTimer } from '../statement-timer.js';
import { isBuiltinType } from './postgres-values.js';

/** SQLSTATE of a cancelled statement. */
export const QUERY_CANCELED = '57014';
/** DECLARE refuses data-modifying WITH (feature not supported): run the statement directly. */
const NOT_A_CURSOR = new Set(['0A000']);

const SAVEPOINT = 'ic_statement';
const CURSOR = 'ic_rows';
/**
 * Ends a statement that succeeded and opens the savepoint of the next one, in the same round trip:
 * between statements the savepoint is always open, so running a statement costs two round trips.
 */
const NEXT_STATEMENT = `RELEASE SAVEPOINT ${SAVEPOINT}; SAVEPOINT ${SAVEPOINT}`;

export interface PgError extends Error {
  code?: string;
}

/** The result of running one statement, before it becomes an outcome. */
export interface PostgresRunResult {
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
export class CatalogueInterrupted extends Error {
  constructor(readonly result: PostgresRunResult) {
    super('the catalogue query was interrupted');
  }
}

/** What the runner needs of its session. */
export interface PostgresRunnerContext {
  countLimit(): number;
  killGraceMs(): number;
  /** Stops the session's statement from an administrator connection. */
  interrupt(how: Interruption): Promise<void>;
  /** The loss of the session's connection, if it was lost. */
  lost(): Error | undefined;
  /**
   * What ends a statement that succeeded and opens the savepoint of the next (default: release the
   * savepoint and open it again, so that the statement's effects stay in the episode's transaction).
   */
  readonly statementEnd?: string;
  /** One of the session's own statements (simple protocol, several allowed). */
  simple(sql: string): Promise<pg.QueryResult | pg.QueryResult[]>;
  /** The agent's statement (extended protocol: exactly one statement). */
  extended(sql: string): Promise<pg.QueryResult>;
}

function oneLine(text: string): string {
  return text.replace(/\s*\n\s*/g, ' ');
}

/**
 * How a PostgreSQL session runs one statement inside the episode's transaction, in its own
 * savepoint (between statements the savepoint `ic_statement` is always open): a query a cursor can
 * run is declared as one, so that `FETCH` returns at most `maxRows` rows and `MOVE` counts the rest
 * on the server up to the engine's bound; other statements run directly (extended protocol: one
 * statement only), their rows kept and counted in memory the same way. A statement that fails is
 * undone alone (`ROLLBACK TO SAVEPOINT`). The time limit cancels it, then ends its connection.
 * Also learns the names of result types pg's table does not know (`citext`).
 */
export class PostgresStatementRunner {
  /** The savepoint every statement runs in (the session opens it with the transaction). */
  static readonly savepoint = SAVEPOINT;
  /** Names of types outside pg's built-in table (`citext`, types the session made), by OID. */
  readonly typeNames = new Map<number, string>();

  constructor(private readonly session: PostgresRunnerContext) {}

  async run(sql: string, cursor: boolean, options: QueryOptions): Promise<PostgresRunResult> {
    const result: PostgresRunResult = { rows: [], total: 0, capped: false, timedOut: false };
    const timer = new StatementTimer(
      options.timeoutMs,
      this.session.killGraceMs(),
      () => this.session.interrupt('cancel'),
      () => this.session.interrupt('end'),
    );
    try {
      let declared = false;
      if (cursor) {
        try {
          await this.session.extended(`DECLARE ${CURSOR} NO SCROLL CURSOR FOR ${sql}`);
          declared = true;
        } catch (error) {
          if (!NOT_A_CURSOR.has((error as PgError).code ?? '')) throw error;
          await this.session.simple(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`);
        }
      }
      if (declared) await this.fetch(options, result);
      else {
        const direct = await this.session.extended(sql);
        await this.session.simple(this.session.statementEnd ?? NEXT_STATEMENT);
        this.direct(direct, options, result);
      }
    } catch (error) {
      const lost = this.session.lost();
      if (lost) result.lost = lost;
      else {
        result.error = error as PgError;
        await this.session.simple(`ROLLBACK TO SAVEPOINT ${SAVEPOINT}`).catch((rollback: unknown) => {
          result.lost = this.session.lost() ?? (rollback as Error);
        });
      }
    } finally {
      // A signal in flight must land before the session's next statement can start.
      await timer.stop();
      result.timedOut = timer.timedOut;
    }
    if (result.fields && !result.lost) await this.learnTypes(result.fields);
    return result;
  }

  /** Rows of a read-only catalogue query, run like a statement (its own savepoint, the time left). */
  async catalogueRows(sql: string, deadline: number): Promise<unknown[][]> {
    const timeoutMs = deadline - performance.now();
    if (timeoutMs <= 0) throw new CatalogueInterrupted({ rows: [], total: 0, capped: false, timedOut: true });
    const result = await this.run(sql, false, { timeoutMs, maxRows: Number.POSITIVE_INFINITY });
    if (result.lost) throw new CatalogueInterrupted(result);
    if (result.timedOut && result.error?.code === QUERY_CANCELED) throw new CatalogueInterrupted(result);
    if (result.error) throw new Error(`introspection failed: ${oneLine(result.error.message)}`);
    return result.rows;
  }

  /** FETCH the rows wanted, MOVE over the rest (counting), CLOSE, RELEASE: one round trip. */
  private async fetch(options: QueryOptions, result: PostgresRunResult): Promise<void> {
    const countLimit = this.session.countLimit();
    const finite = Number.isFinite(options.maxRows);
    const maxRows = finite ? Math.max(0, Math.floor(options.maxRows)) : 0;
    const move = Math.max(1, countLimit + 1 - maxRows);
    const steps = finite
      ? [`FETCH FORWARD ${maxRows} FROM ${CURSOR}`, `MOVE FORWARD ${move} IN ${CURSOR}`]
      : [`FETCH ALL FROM ${CURSOR}`];
    const replies = (await this.session.simple(
      [...steps, `CLOSE ${CURSOR}`, this.session.statementEnd ?? NEXT_STATEMENT].join('; '),
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
  private direct(reply: pg.QueryResult, options: QueryOptions, result: PostgresRunResult): void {
    result.command = reply.command;
    result.rowCount = reply.rowCount;
    if (reply.fields.length === 0 && reply.command !== 'SELECT') return;
    const rows = reply.rows as unknown[][];
    const bound = Math.max(this.session.countLimit(), Number.isFinite(options.maxRows) ? options.maxRows : 0);
    result.fields = reply.fields;
    result.rows = Number.isFinite(options.maxRows) ? rows.slice(0, Math.max(0, options.maxRows)) : rows;
    result.total = Number.isFinite(options.maxRows) ? Math.min(rows.length, bound) : rows.length;
    result.capped = Number.isFinite(options.maxRows) && rows.length > bound;
  }

  /** Names of the result's types that pg's table does not know (`citext`), from `pg_type`. */
  private async learnTypes(fields: readonly pg.FieldDef[]): Promise<void> {
    const unknown = [...new Set(fields.map((field) => field.dataTypeID))].filter(
      (oid) => !isBuiltinType(oid) && !this.typeNames.has(oid),
    );
    if (unknown.length === 0) return;
    const lookup = `SELECT oid::int8, typname::text FROM pg_catalog.pg_type WHERE oid IN (${unknown.join(', ')})`;
    try {
      const replies = (await this.session.simple(
        `SAVEPOINT ic_types; ${lookup}; RELEASE SAVEPOINT ic_types`,
      )) as pg.QueryResult[];
      for (const [oid, name] of (replies[1]?.rows ?? []) as [bigint, string][])
        this.typeNames.set(Number(oid), name);
    } catch {
      await this.session.simple('ROLLBACK TO SAVEPOINT ic_types').catch(() => {});
    }
  }
}
