import { datasetStatus } from '../../datasets/dataset-status.js';
import type { ServerContext } from '../app/server-context.js';
import { ownerOf } from '../app/server-context.js';
import { parseSessionParams, sessionRunConfig } from '../session/session-config.js';
import { SessionError } from '../session/session-error.js';
import { MAX_FORK, SessionRegistry } from '../session/session-registry.js';
import { sendError, sendJson } from './http-reply.js';
import { HANDLED, requestIdOf, withRequestId } from './openenv-routes.js';
import { readJsonBody } from './read-json-body.js';
import type { RouteRequest, RouteTable } from './route-table.js';

const MAX_TASK_PAGE = 1000;

/**
 * Our extensions, all under `/intercode/` so they never collide with OpenEnv's paths: datasets and
 * their tasks (never the gold), HTTP sessions for clients that cannot hold a WebSocket, capacity and
 * readiness.
 */
export function addIntercodeRoutes(table: RouteTable, context: ServerContext): void {
  const { host } = context;

  table.add('GET', '/intercode/datasets', ({ response }) => {
    const datasets = host.registries.datasets.list().map(({ id }) => {
      const spec = host.registries.datasets.get(id);
      const status = datasetStatus(spec);
      return {
        id,
        env: spec.env,
        tasks: Number.isInteger(spec.taskCount) ? spec.taskCount : null,
        cached: status === 'built-in' || status === 'cached',
        description: spec.description,
      };
    });
    sendJson(response, 200, { datasets });
  });

  table.add('GET', '/intercode/datasets/*id/tasks', async ({ response, params, url, request }) => {
    const requestId = requestIdOf(undefined, request.headers);
    try {
      const id = params.id ?? '';
      if (!host.registries.datasets.has(id)) throw new SessionError('NOT_FOUND', `unknown dataset "${id}"`);
      const offset = queryInt(url, 'offset', 0, 0, Number.MAX_SAFE_INTEGER);
      const limit = queryInt(url, 'limit', 100, 1, MAX_TASK_PAGE);
      const dataset = await host.pool.loadDataset(id);
      const tasks = dataset.tasks.slice(offset, offset + limit).map((task) => ({
        task_id: task.id,
        index: task.index,
        instruction: task.query,
        ...(task.group !== undefined ? { group: task.group } : {}),
      }));
      sendJson(
        response,
        200,
        withRequestId({ dataset: id, total: dataset.tasks.length, offset, tasks }, requestId),
      );
    } catch (error) {
      sendError(response, error, requestId);
    }
  });

  table.add('POST', '/intercode/sessions', async (route: RouteRequest) => {
    const body = await bodyOf(route, context);
    const requestId = requestIdOf(body, route.request.headers);
    try {
      const { request_id: _id, ...rest } = (
        typeof body === 'object' && body !== null && !Array.isArray(body) ? body : (body ?? {})
      ) as Record<string, unknown>;
      const { params } = parseSessionParams(Array.isArray(body) ? body : rest, ['body']);
      // A setting that cannot work is refused now, not at the session's first reset.
      await host.pool.get(sessionRunConfig(params, host.defaults, host.registries, ['body']), ['body']);
      const session = host.sessions.open({ owner: ownerOf(route.request, context), params });
      sendJson(route.response, 201, withRequestId({ session_id: session.id }, requestId));
    } catch (error) {
      sendError(route.response, error, requestId);
    }
  });

  table.add('GET', '/intercode/sessions', ({ response }) =>
    sendJson(response, 200, {
      active: host.sessions.active,
      max: host.sessions.maxSessions,
      idle_timeout_s: context.limits.idleTimeoutMs / 1000,
      step_timeout_s: context.limits.stepTimeoutMs / 1000,
      sandboxes: context.liveSandboxes(),
    }),
  );

  table.add('POST', '/intercode/sessions/:id/fork', async (route: RouteRequest) => {
    const body = await bodyOf(route, context);
    const requestId = requestIdOf(body, route.request.headers);
    try {
      const count = (body as { count?: unknown } | null)?.count;
      if (typeof count !== 'number' || !Number.isInteger(count) || count < 1 || count > MAX_FORK) {
        throw SessionError.validation(
          ['body', 'count'],
          `count must be an integer from 1 to ${MAX_FORK}`,
          count ?? null,
        );
      }
      const id = route.params.id ?? '';
      const forked = await host.sessions.fork(id, count, ownerOf(route.request, context));
      sendJson(route.response, 201, withRequestId(SessionRegistry.forkReply(forked), requestId));
    } catch (error) {
      sendError(route.response, error, requestId);
    }
  });

  table.add('DELETE', '/intercode/sessions/:id', async ({ response, params, request }) => {
    const requestId = requestIdOf(undefined, request.headers);
    const id = params.id ?? '';
    try {
      if (!(await host.sessions.close(id))) {
        throw new SessionError(
          'SESSION_NOT_FOUND',
          `no session "${id}" (closed, reaped after idling, or never opened)`,
        );
      }
      sendJson(response, 200, withRequestId({ session_id: id, closed: true }, requestId));
    } catch (error) {
      sendError(response, error, requestId);
    }
  });

  table.add('GET', '/intercode/ready', ({ response }) => {
    const active = host.sessions.active;
    const max = host.sessions.maxSessions;
    if (context.shuttingDown) return sendJson(response, 503, { ready: false, reason: 'shutting down' });
    if (active >= max)
      return sendJson(response, 503, { ready: false, reason: `at capacity (${active}/${max} sessions)` });
    return sendJson(response, 200, { ready: true, active, max });
  });
}

/** The request's JSON body; an unreadable one is answered here (and the route ends with HANDLED). */
async function bodyOf(route: RouteRequest, context: ServerContext): Promise<unknown> {
  try {
    return await readJsonBody(route.request, context.limits.maxMessageBytes);
  } catch (error) {
    sendError(route.response, error);
    throw HANDLED;
  }
}

function queryInt(url: URL, name: string, fallback: number, min: number, max: number): number {
  const text = url.searchParams.get(name);
  if (text === null) return fallback;
  const value = Number(text);
  if (!Number.isInteger(value) || value < min || value > max) {
    throw SessionError.validation(['query', name], `${name} must be an integer from ${min} to ${max}`, text);
  }
  return value;
}
