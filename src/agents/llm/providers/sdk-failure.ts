import { APICallError } from 'ai';
import type { ModelFailure } from '../model-failure.js';
import { retryAfterMs } from '../model-failure.js';

/** Thrown by an attempt that ran past its time limit (our own timer aborted the request). */
export class AttemptTimeout extends Error {
  constructor(readonly timeoutMs: number) {
    super(`no answer within ${timeoutMs} ms`);
  }
}

const oneLine = (text: string): string => text.replace(/\s+/g, ' ').trim().slice(0, 300);

/** Transient statuses: rate limits, request timeouts, conflicts and every server-side error. */
export function isTransientStatus(status: number): boolean {
  return status === 408 || status === 409 || status === 429 || status >= 500;
}

function networkCode(error: unknown): string | undefined {
  for (let e = error, depth = 0; e instanceof Error && depth < 5; e = e.cause, depth += 1) {
    const code = (e as { code?: unknown }).code;
    if (typeof code === 'string') return code;
  }
  return undefined;
}

const NETWORK_REASONS: Readonly<Record<string, string>> = {
  ECONNRESET: 'connection reset',
  ECONNREFUSED: 'connection refused',
  EPIPE: 'connection reset',
  ETIMEDOUT: 'timeout',
  ENOTFOUND: 'host not found',
  EAI_AGAIN: 'host not found',
  UND_ERR_SOCKET: 'connection closed',
  UND_ERR_CLOSED: 'connection closed',
  UND_ERR_CONNECT_TIMEOUT: 'timeout',
  UND_ERR_HEADERS_TIMEOUT: 'timeout',
  UND_ERR_BODY_TIMEOUT: 'timeout',
};

function isSdkError(error: unknown, name: string): error is Error {
  return error instanceof Error && (error.name === name || error.name === `AI_${name}`);
}

/**
 * Classifies an error of the AI SDK (or of `fetch` under it) into a `ModelFailure`; `undefined` for
 * an error that is not about the endpoint (a bug of ours, an abort), which is thrown as it is.
 */
export function classifySdkError(error: unknown): ModelFailure | undefined {
  if (error instanceof AttemptTimeout)
    return { kind: 'transient', reason: 'timeout', message: error.message };
  if (APICallError.isInstance(error)) {
    const status = error.statusCode;
    const message = oneLine(error.message);
    if (status !== undefined && status >= 200 && status < 300) {
      return {
        kind: 'bad-response',
        reason: 'bad response',
        message: `${message} (status ${status})`,
        status,
      };
    }
    if (status !== undefined) {
      const waitMs = retryAfterMs(error.responseHeaders);
      const base = { reason: String(status), message: `${status}: ${message}`, status };
      if (!isTransientStatus(status)) return { kind: 'rejected', ...base };
      return waitMs === undefined
        ? { kind: 'transient', ...base }
        : { kind: 'transient', ...base, retryAfterMs: waitMs };
    }
    const code = networkCode(error.cause);
    const reason = (code !== undefined ? NETWORK_REASONS[code] : undefined) ?? 'connection failed';
    return { kind: 'transient', reason, message };
  }
  if (
    isSdkError(error, 'InvalidResponseDataError') ||
    isSdkError(error, 'JSONParseError') ||
    isSdkError(error, 'TypeValidationError')
  ) {
    return { kind: 'bad-response', reason: 'bad response', message: oneLine(error.message) };
  }
  if (error instanceof TypeError && error.message.toLowerCase().includes('fetch failed')) {
    const code = networkCode(error.cause);
    return {
      kind: 'transient',
      reason: (code !== undefined ? NETWORK_REASONS[code] : undefined) ?? 'connection failed',
      message: oneLine(`${error.message}: ${error.cause instanceof Error ? error.cause.message : ''}`),
    };
  }
  return undefined;
}
