import type { ServerResponse } from 'node:http';
import { HTTP_STATUS_OF, SessionError } from '../session/session-error.js';

/** Sends a JSON reply. */
export function sendJson(response: ServerResponse, status: number, body: unknown): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}

/**
 * The JSON body of an error: validation errors as FastAPI gives them (`{"detail": [...]}`), ours as
 * `{"detail": "<one line>", "code": "<CODE>", ...}`, with the `request_id` when the request had one.
 */
export function errorBody(error: SessionError, requestId?: string | number): Record<string, unknown> {
  const echo = requestId !== undefined ? { request_id: requestId } : {};
  if (error.code === 'VALIDATION_ERROR' && error.issues) return { detail: error.issues, ...echo };
  return { detail: error.message, code: error.code, ...error.extra, ...echo };
}

/** Sends an error reply; anything that is not a SessionError is an EXECUTION_ERROR (message, no stack). */
export function sendError(response: ServerResponse, thrown: unknown, requestId?: string | number): void {
  const error = SessionError.from(thrown);
  if (response.headersSent) {
    response.destroy();
    return;
  }
  // The rest of an oversized body is not read: the connection cannot carry another request.
  if (error.code === 'PAYLOAD_TOO_LARGE') response.setHeader('connection', 'close');
  sendJson(response, HTTP_STATUS_OF[error.code], errorBody(error, requestId));
}
