import type { ErrorOutcome, OkOutcome, RowsOutcome } from './sql-engine.js';
import { QUERY_ERROR } from './sql-engine.js';

/**
 * The outcome of a query refused before it reached the engine (no statement, several statements,
 * a statement the session's guard refuses).
 */
export function refusedOutcome(message: string, code: string, durationMs: number): ErrorOutcome {
  return { kind: 'error', message, code, durationMs };
}

/**
 * The outcome of a query stopped by its time limit; `note` says what the session had to do on top
 * (e.g. that its connection was closed), appended to the message.
 */
export function timedOutOutcome(timeoutMs: number, durationMs: number, note = ''): ErrorOutcome {
  return {
    kind: 'error',
    message: `query timed out after ${timeoutMs} ms${note}`,
    code: QUERY_ERROR.timeout,
    timedOut: true,
    durationMs,
  };
}

/** A failed query as the engine reported it (`code`: the engine's own, when it gave one). */
export function errorOutcome(message: string, code: string | undefined, durationMs: number): ErrorOutcome {
  return { kind: 'error', message, ...(code ? { code } : {}), durationMs };
}

/** A statement without a result set; `affectedRows` when it is DML and the engine says so. */
export function okOutcome(affectedRows: number | undefined, durationMs: number): OkOutcome {
  return { kind: 'ok', ...(affectedRows !== undefined ? { affectedRows } : {}), durationMs };
}

/** What a server returned for a statement with a result set, before it becomes an outcome. */
export interface ReturnedRows {
  readonly columns: string[];
  readonly columnTypes: string[];
  /** The rows kept (at most the query's `maxRows`). */
  readonly rows: unknown[][];
  /** Rows counted in all (a lower bound when `capped`). */
  readonly total: number;
  /** Counting stopped at the engine's bound. */
  readonly capped: boolean;
}

/** A result set as an outcome. */
export function rowsOutcome(result: ReturnedRows, durationMs: number): RowsOutcome {
  return {
    kind: 'rows',
    columns: result.columns,
    columnTypes: result.columnTypes,
    rows: result.rows,
    totalRows: result.total,
    truncated: result.total > result.rows.length,
    ...(result.capped ? { totalRowsCapped: true } : {}),
    durationMs,
  };
}
