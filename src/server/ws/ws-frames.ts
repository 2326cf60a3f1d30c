import { z } from 'zod';
import { parseJsonText } from '../http/read-json-body.js';
import { SessionError } from '../session/session-error.js';
import { MAX_FORK } from '../session/session-registry.js';
import { toValidationIssues } from '../session/wire-schemas.js';

const requestId = z.union([z.string().max(255), z.number()]).optional();

/** The client frames of `/ws`: OpenEnv's, plus our optional top-level `request_id` and `fork`. */
const FRAME_SCHEMAS = {
  reset: z.strictObject({
    type: z.literal('reset'),
    data: z.record(z.string(), z.unknown()).optional(),
    request_id: requestId,
  }),
  step: z.strictObject({ type: z.literal('step'), data: z.unknown(), request_id: requestId }),
  state: z.strictObject({ type: z.literal('state'), request_id: requestId }),
  close: z.object({ type: z.literal('close') }),
  mcp: z.strictObject({ type: z.literal('mcp'), data: z.unknown(), request_id: requestId }),
  fork: z.strictObject({
    type: z.literal('fork'),
    data: z.strictObject({ count: z.number().int().min(1).max(MAX_FORK) }),
    request_id: requestId,
  }),
} as const;

/** One client frame, checked. */
export type ClientFrame =
  | { type: 'reset'; data?: Record<string, unknown>; request_id?: string | number }
  | { type: 'step'; data: unknown; request_id?: string | number }
  | { type: 'state'; request_id?: string | number }
  | { type: 'close' }
  | { type: 'mcp'; data: unknown; request_id?: string | number }
  | { type: 'fork'; data: { count: number }; request_id?: string | number };

/** The `request_id` of a frame that did not pass its checks, when it has a usable one (for the error's echo). */
export function looseRequestId(value: unknown): string | number | undefined {
  const id =
    typeof value === 'object' && value !== null ? (value as { request_id?: unknown }).request_id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : undefined;
}

/**
 * Parses and checks a frame's text: INVALID_JSON, VALIDATION_ERROR (not an object, extra keys, a
 * step without data, JSON nested too deep) or UNKNOWN_TYPE. `raw` receives the parsed JSON, so the
 * caller can echo a `request_id` even when the frame is refused.
 */
export function parseClientFrame(text: string, raw: { value?: unknown } = {}): ClientFrame {
  const value = parseJsonText(text, []);
  raw.value = value;
  if (typeof value !== 'object' || value === null || Array.isArray(value)) {
    throw SessionError.validation([], 'a frame is a JSON object with a "type"', value ?? null);
  }
  const type = (value as { type?: unknown }).type;
  if (typeof type !== 'string' || !Object.hasOwn(FRAME_SCHEMAS, type)) {
    throw new SessionError(
      'UNKNOWN_TYPE',
      `Unknown message type: ${typeof type === 'string' ? type : JSON.stringify(type ?? null)}`,
    );
  }
  const schema = FRAME_SCHEMAS[type as keyof typeof FRAME_SCHEMAS];
  const result = schema.safeParse(value);
  if (!result.success) {
    const issues = toValidationIssues(result.error, value);
    throw new SessionError(
      'VALIDATION_ERROR',
      `invalid ${type} frame: ${issues.map((issue) => issue.msg).join('; ')}`,
      {
        issues,
      },
    );
  }
  if ((type === 'step' || type === 'mcp') && !('data' in value)) {
    throw new SessionError('VALIDATION_ERROR', `a ${type} frame needs "data"`, {
      issues: [{ type: 'missing', loc: ['data'], msg: 'field required', input: value }],
    });
  }
  return result.data as ClientFrame;
}
