import type { Connection, FieldPacket, QueryError, ResultSetHeader } from 'mysql2';
import type { QueryOptions } from '../sql-engine.js';
import { StatementTimer } from '../statement-timer.js';
import type { MysqlStatementKind } from './mysql-guard.js';
import { mysqlColumnType } from './mysql-values.js';

/** The result of running one statement, before it becomes an outcome. */
export interface MysqlRunResult {
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

/** What a statement run needs of its session. */
export interface MysqlRunContext {
  readonly connection: Connection;
  readonly countLimit: number;
  readonly killGraceMs: number;
  /** `KILL QUERY` (`cancel`) or `KILL CONNECTION` (`end`) of the session's connection. */
  interrupt(how: 'cancel' | 'end'): Promise<void>;
  /** Who hears of a loss of the connection while the statement runs (undefined: nobody). */
  watchLoss(listener: ((error: Error) => void) | undefined): void;
}

/**
 * Runs the agent's statement, streaming its rows: keeps `maxRows`, counts up to the engine's
 * bound, then (for a read) kills the query; kills it too when the time limit passes. Resolves once
 * the statement ended and every kill sent has landed; never rejects (a failure is in the result).
 */
export function runMysqlStatement(
  context: MysqlRunContext,
  sql: string,
  kind: MysqlStatementKind,
  options: QueryOptions,
): Promise<MysqlRunResult> {
  const maxRows = Math.max(0, options.maxRows);
  const { countLimit } = context;
  const result: MysqlRunResult = { rows: [], total: 0, capped: false, timedOut: false };
  return new Promise((resolve) => {
    const timer = new StatementTimer(
      options.timeoutMs,
      context.killGraceMs,
      () => context.interrupt('cancel'),
      () => context.interrupt('end'),
    );
    let settled = false;
    const settle = () => {
      if (settled) return;
      settled = true;
      result.timedOut = timer.timedOut;
      context.watchLoss(undefined);
      // A kill in flight must land before the session's next statement can start.
      void timer.stop().then(() => resolve(result));
    };
    context.watchLoss((error) => {
      result.lost = error;
      settle();
    });
    const query = context.connection.query({ sql, rowsAsArray: true });
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
        if (kind === 'read') timer.add(context.interrupt('cancel'));
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
