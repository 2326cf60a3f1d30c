import { IntercodeError } from '../../core/errors.js';
import type { ValidationIssue } from './wire-schemas.js';

/**
 * The error codes of the wire protocol (WS `error` frames, HTTP `code` fields). They are OpenEnv's
 * codes plus ours; a code never changes meaning (docs/server/protocol.md lists each with its status).
 */
export type WireErrorCode =
  | 'INVALID_JSON'
  | 'UNKNOWN_TYPE'
  | 'VALIDATION_ERROR'
  | 'EXECUTION_ERROR'
  | 'NOT_RESET'
  | 'EPISODE_DONE'
  | 'STEP_TIMEOUT'
  | 'MESSAGE_TOO_LARGE'
  | 'CAPACITY_REACHED'
  | 'FACTORY_ERROR'
  | 'SESSION_NOT_FOUND'
  | 'SESSION_BUSY'
  | 'UNAUTHORIZED'
  | 'NOT_FOUND'
  | 'METHOD_NOT_ALLOWED'
  | 'PAYLOAD_TOO_LARGE'
  | 'FORK_UNSUPPORTED';

/** The HTTP status of each code. */
export const HTTP_STATUS_OF: Readonly<Record<WireErrorCode, number>> = {
  INVALID_JSON: 400,
  UNKNOWN_TYPE: 400,
  VALIDATION_ERROR: 422,
  EXECUTION_ERROR: 500,
  NOT_RESET: 409,
  EPISODE_DONE: 409,
  STEP_TIMEOUT: 504,
  MESSAGE_TOO_LARGE: 413,
  CAPACITY_REACHED: 503,
  FACTORY_ERROR: 500,
  SESSION_NOT_FOUND: 404,
  SESSION_BUSY: 409,
  UNAUTHORIZED: 401,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  PAYLOAD_TOO_LARGE: 413,
  FORK_UNSUPPORTED: 409,
};

/**
 * A request the server answers with an error: the message is one line naming the bad input (never a
 * stack), `code` is a {@link WireErrorCode}; `issues` carries the validation list, `extra` the fields
 * some codes add (`active_sessions`, `max_sessions`).
 */
export class SessionError extends Error {
  readonly code: WireErrorCode;
  readonly issues: ValidationIssue[] | undefined;
  readonly extra: Readonly<Record<string, unknown>>;

  constructor(
    code: WireErrorCode,
    message: string,
    options: { issues?: ValidationIssue[]; extra?: Record<string, unknown>; cause?: unknown } = {},
  ) {
    super(message, options.cause !== undefined ? { cause: options.cause } : undefined);
    this.name = 'SessionError';
    this.code = code;
    this.issues = options.issues;
    this.extra = options.extra ?? {};
  }

  /** A validation error with one issue. */
  /** Anything thrown, as a wire error: ours pass through, others are EXECUTION_ERROR (first line, no stack). */
  static from(thrown: unknown): SessionError {
    if (thrown instanceof SessionError) return thrown;
    return new SessionError(
      'EXECUTION_ERROR',
      thrown instanceof Error ? (thrown.message.split('\n')[0] ?? '') : String(thrown),
    );
  }

  static validation(loc: (string | number)[], msg: string, input: unknown): SessionError {
    return new SessionError('VALIDATION_ERROR', msg, { issues: [{ type: 'value_error', loc, msg, input }] });
  }
}

/** Any failure as a wire error: ours pass through, the env's become EXECUTION_ERROR (one line, no stack). */
export function asWireError(error: unknown): SessionError {
  if (error instanceof SessionError) return error;
  const message = error instanceof Error ? error.message : String(error);
  const firstLine = message.split('\n')[0] ?? '';
  const code = IntercodeError.isInstance(error) ? ` (${error.code})` : '';
  return new SessionError('EXECUTION_ERROR', `${firstLine}${code}`, { cause: error });
}
