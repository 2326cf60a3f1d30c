import type { IncomingHttpHeaders } from 'node:http';
import type { ServerContext } from '../app/server-context.js';
import { ownerOf } from '../app/server-context.js';
import type { EnvSession } from '../session/env-session.js';
import { SessionError } from '../session/session-error.js';
import {
  ActionSchema,
  StepBodySchema,
  toValidationIssues,
  type ValidationIssue,
  type WireAction,
  wireJsonSchemas,
} from '../session/wire-schemas.js';
import { sendError, sendJson } from './http-reply.js';
import { openApiDocument } from './openapi-document.js';
import { readJsonBody } from './read-json-body.js';
import type { RouteRequest, RouteTable } from './route-table.js';

/** Body keys that address the request, not the env: never passed on as reset params. */
const ADDRESSING_KEYS = ['session_id', 'request_id'];

/**
 * OpenEnv's HTTP endpoints: `/health`, `/metadata`, `/schema`, `/openapi.json`, and `/reset`, `/step`,
 * `/state`, stateless (a fresh env per request, OpenEnv ≥ 0.2) unless a session id is given (body
 * `session_id`, header `X-Session-Id`, or `?session_id=` for `/state`), then on that session's episode.
 */
export function addOpenEnvRoutes(table: RouteTable, context: ServerContext): void {
  table.add('GET', '/health', ({ response }) => sendJson(response, 200, { status: 'healthy' }), {
    open: true,
  });
  table.add('GET', '/metadata', ({ response }) =>
    sendJson(response, 200, {
      name: 'intercode',
      description:
        'InterCode interactive coding benchmarks (Bash, SQL, Python, CTF) as environments: act with {"code": ...}, end with "submit".',
      readme_content: null,
      version: context.version,
      author: null,
      documentation_url: null,
    }),
  );
  table.add('GET', '/schema', ({ response }) =>
    sendJson(response, 200, wireJsonSchemas(context.host.defaults.observationProfile)),
  );
  table.add('GET', '/openapi.json', ({ response }) =>
    sendJson(response, 200, openApiDocument(context.host.defaults.observationProfile)),
  );

  table.add('POST', '/reset', async (route) => {
    const body = await bodyOf(route, context);
    const requestId = requestIdOf(body, route.request.headers);
    try {
      const params = withoutAddressing(body);
      const reply = await onSession(route, context, body, (session) =>
        validatedIn(['body'], session.reset(params)),
      );
      sendJson(route.response, 200, withRequestId(reply, requestId));
    } catch (error) {
      sendError(route.response, error, requestId);
    }
  });

  table.add('POST', '/step', async (route) => {
    const body = await bodyOf(route, context);
    const requestId = requestIdOf(body, route.request.headers);
    try {
      const parsed = parseStepBody(body);
      const { action, timeout_s: timeoutS } = parsed;
      const step = { ...(timeoutS !== undefined ? { timeoutMs: timeoutS * 1000 } : {}) };
      const reply = await onSession(route, context, body, async (session, stateless) => {
        if (stateless) {
          const { action: _action, timeout_s: _timeout, ...resetParams } = withoutAddressing(body);
          await validatedIn(['body'], session.reset(resetParams));
        }
        return session.step(action, step);
      });
      sendJson(route.response, 200, withRequestId(reply, requestId));
    } catch (error) {
      sendError(route.response, error, requestId);
    }
  });

  table.add('GET', '/state', async (route) => {
    const requestId = requestIdOf(undefined, route.request.headers);
    try {
      const id =
        sessionIdOf(undefined, route.request.headers) ??
        route.url.searchParams.get('session_id') ??
        undefined;
      const state = id === undefined ? context.host.createSession().state() : found(context, id).state();
      sendJson(route.response, 200, withRequestId(state, requestId));
    } catch (error) {
      sendError(route.response, error, requestId);
    }
  });
}

/** The body, or an error reply already sent (then `route.response` is finished and this throws). */
async function bodyOf(route: RouteRequest, context: ServerContext): Promise<unknown> {
  try {
    return await readJsonBody(route.request, context.limits.maxMessageBytes);
  } catch (error) {
    sendError(route.response, error, requestIdOf(undefined, route.request.headers));
    throw HANDLED;
  }
}

/** Thrown after an error reply was sent, so the handler stops without a second reply. */
export const HANDLED: unique symbol = Symbol('handled');

/** Runs `work` on the named session, or on a fresh one (opened, used, closed) when none is named. */
async function onSession<T>(
  route: RouteRequest,
  context: ServerContext,
  body: unknown,
  work: (session: EnvSession, stateless: boolean) => Promise<T>,
): Promise<T> {
  const id = sessionIdOf(body, route.request.headers);
  if (id !== undefined) return work(found(context, id), false);
  const session = context.host.sessions.open({ owner: ownerOf(route.request, context) });
  try {
    return await work(session, true);
  } finally {
    await context.host.sessions.close(session.id);
  }
}

export function found(context: ServerContext, id: string): EnvSession {
  const session = context.host.sessions.get(id);
  if (!session)
    throw new SessionError(
      'SESSION_NOT_FOUND',
      `no session "${id}" (closed, reaped after idling, or never opened)`,
    );
  return session;
}

/** Reset-param issues get the location of the params in the request (`["body", ...]`). */
async function validatedIn<T>(loc: string[], work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof SessionError && error.code === 'VALIDATION_ERROR' && error.issues) {
      throw new SessionError('VALIDATION_ERROR', error.message, {
        issues: error.issues.map((issue) => ({ ...issue, loc: [...loc, ...issue.loc] })),
      });
    }
    throw error;
  }
}

/**
 * Checks a step body: its own fields located in the body (`["body", "timeout_s"]`), the action's
 * relative to the action as OpenEnv does (`["code"]`).
 */
function parseStepBody(body: unknown): { action: WireAction; timeout_s?: number | undefined } {
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw SessionError.validation(
      ['body'],
      'the step body must be a JSON object with an "action"',
      body ?? null,
    );
  }
  const issues: ValidationIssue[] = [];
  const { action, ...rest } = body as Record<string, unknown>;
  if (action === undefined) {
    issues.push({ type: 'missing', loc: ['body', 'action'], msg: 'field required', input: body });
  }
  const fields = StepFieldsSchema.safeParse(rest);
  if (!fields.success) issues.push(...toValidationIssues(fields.error, rest, ['body']));
  const parsedAction = action === undefined ? undefined : ActionSchema.safeParse(action);
  if (parsedAction && !parsedAction.success) issues.push(...toValidationIssues(parsedAction.error, action));
  if (issues.length > 0 || !parsedAction?.success || !fields.success) {
    throw new SessionError('VALIDATION_ERROR', 'invalid step body', { issues });
  }
  return { action: parsedAction.data, timeout_s: fields.data.timeout_s };
}

const StepFieldsSchema = StepBodySchema.omit({ action: true });

function withoutAddressing(body: unknown): Record<string, unknown> {
  if (typeof body !== 'object' || body === null || Array.isArray(body))
    return (body ?? {}) as Record<string, unknown>;
  return Object.fromEntries(Object.entries(body).filter(([key]) => !ADDRESSING_KEYS.includes(key)));
}

export function requestIdOf(body: unknown, headers: IncomingHttpHeaders): string | number | undefined {
  const fromBody = (body as { request_id?: unknown } | undefined)?.request_id;
  if (typeof fromBody === 'string' || typeof fromBody === 'number') return fromBody;
  const header = headers['x-request-id'];
  return typeof header === 'string' ? header : undefined;
}

export function sessionIdOf(body: unknown, headers: IncomingHttpHeaders): string | undefined {
  const fromBody =
    typeof body === 'object' && body !== null ? (body as { session_id?: unknown }).session_id : undefined;
  if (typeof fromBody === 'string') return fromBody;
  const header = headers['x-session-id'];
  return typeof header === 'string' ? header : undefined;
}

export function withRequestId<T extends object>(reply: T, requestId: string | number | undefined): T {
  return requestId === undefined ? reply : { ...reply, request_id: requestId };
}
