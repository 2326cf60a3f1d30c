import type { IncomingMessage } from 'node:http';
import { SessionError } from '../session/session-error.js';
import { jsonTooDeep, MAX_JSON_DEPTH } from './json-depth.js';

/**
 * Reads a request's JSON body: `undefined` when empty; PAYLOAD_TOO_LARGE past `maxBytes` (from the
 * Content-Length before reading, or while reading), INVALID_JSON for text that is not JSON, and a
 * VALIDATION_ERROR for JSON nested deeper than {@link MAX_JSON_DEPTH}.
 */
export async function readJsonBody(request: IncomingMessage, maxBytes: number): Promise<unknown> {
  const declared = Number(request.headers['content-length']);
  if (Number.isFinite(declared) && declared > maxBytes) throw tooLarge(maxBytes);
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request as AsyncIterable<Buffer>) {
    size += chunk.length;
    if (size > maxBytes) throw tooLarge(maxBytes);
    chunks.push(chunk);
  }
  const text = Buffer.concat(chunks, size).toString('utf8');
  return parseJsonText(text, ['body']);
}

/** Parses request JSON text with the depth cap (`loc` names where it came from in errors). */
export function parseJsonText(text: string, loc: (string | number)[]): unknown {
  if (text.trim() === '') return undefined;
  if (jsonTooDeep(text)) {
    throw SessionError.validation(loc, `JSON nested deeper than ${MAX_JSON_DEPTH} levels`, null);
  }
  try {
    return JSON.parse(text) as unknown;
  } catch (error) {
    throw new SessionError('INVALID_JSON', `not valid JSON: ${(error as Error).message}`);
  }
}

function tooLarge(maxBytes: number): SessionError {
  return new SessionError(
    'PAYLOAD_TOO_LARGE',
    `the body is larger than the server's limit of ${maxBytes} bytes`,
  );
}
