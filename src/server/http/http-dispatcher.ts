import type { IncomingMessage, ServerResponse } from 'node:http';
import type { ServerContext } from '../app/server-context.js';
import { SessionError } from '../session/session-error.js';
import { tokenMatches } from './bearer-auth.js';
import { sendError } from './http-reply.js';
import { HANDLED } from './openenv-routes.js';
import type { RouteTable } from './route-table.js';

/**
 * The HTTP request listener: routes each request through `table`, checks the bearer token on every
 * route but the open ones, answers NOT_FOUND / METHOD_NOT_ALLOWED, and turns anything a handler
 * throws into an error reply (never a stack).
 */
export function httpDispatcher(
  table: RouteTable,
  context: ServerContext,
): (request: IncomingMessage, response: ServerResponse) => void {
  return (request, response) => {
    const url = new URL(request.url ?? '/', 'http://server');
    const found = table.match(request.method ?? 'GET', url.pathname);
    if ('error' in found) {
      request.resume();
      if (found.error === 'METHOD_NOT_ALLOWED') {
        response.setHeader('allow', found.allow.join(', '));
        sendError(
          response,
          new SessionError('METHOD_NOT_ALLOWED', `${request.method} is not allowed on ${url.pathname}`),
        );
      } else {
        sendError(response, new SessionError('NOT_FOUND', `no endpoint ${url.pathname}`));
      }
      return;
    }
    if (
      !found.open &&
      context.token !== undefined &&
      !tokenMatches(context.token, request.headers.authorization)
    ) {
      request.resume();
      sendError(
        response,
        new SessionError('UNAUTHORIZED', 'missing or wrong bearer token (Authorization: Bearer <token>)'),
      );
      return;
    }
    Promise.resolve()
      .then(() => found.handler({ request, response, url, params: found.params }))
      .catch((error: unknown) => {
        if (error !== HANDLED) sendError(response, error);
      });
  };
}
