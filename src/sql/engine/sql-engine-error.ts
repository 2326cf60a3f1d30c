import { type ErrorCode, IntercodeError } from '../../core/errors.js';

/** Codes an SQL engine throws with (see {@link SqlEngine} for their meaning). */
export type SqlEngineErrorCode = Extract<
  ErrorCode,
  | 'SQL_ENGINE_UNAVAILABLE'
  | 'SQL_ENGINE_FAILED'
  | 'SQL_DATABASE_UNKNOWN'
  | 'SQL_SESSION_CLOSED'
  | 'SQL_ACCOUNT_PRIVILEGES'
>;

/** An SQL engine could not do its job (not a query's own failure: those are outcomes). */
export class SqlEngineError extends IntercodeError {
  constructor(code: SqlEngineErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}

/** The message of a caught error (anything thrown), for an error message of ours. */
export function errorReason(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

/**
 * An unexpected failure of a server session as the engine's error: the server's own failure when it
 * is gone (`health`), else `SQL_ENGINE_FAILED` naming the session (`what`, e.g. `the MySQL session on
 * concert_singer`).
 */
export async function sessionFailure(
  error: unknown,
  health: () => Promise<SqlEngineError | undefined>,
  what: string,
): Promise<SqlEngineError> {
  if (error instanceof SqlEngineError) return error;
  const failure = await health();
  if (failure) return failure;
  return new SqlEngineError('SQL_ENGINE_FAILED', `${what} failed: ${errorReason(error)}`, { cause: error });
}
