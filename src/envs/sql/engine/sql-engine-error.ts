import { type ErrorCode, IntercodeError } from '../../../core/errors.js';

/** Codes an SQL engine throws with (see {@link SqlEngine} for their meaning). */
export type SqlEngineErrorCode = Extract<
  ErrorCode,
  'SQL_ENGINE_UNAVAILABLE' | 'SQL_ENGINE_FAILED' | 'SQL_DATABASE_UNKNOWN' | 'SQL_SESSION_CLOSED'
>;

/** An SQL engine could not do its job (not a query's own failure: those are outcomes). */
export class SqlEngineError extends IntercodeError {
  constructor(code: SqlEngineErrorCode, message: string, options?: { cause?: unknown }) {
    super(code, message, options);
  }
}
