import type { ServerContext } from '../app/server-context.js';
import { ownerOf } from '../app/server-context.js';
import { SessionError } from '../session/session-error.js';
import { sendError, sendJson } from './http-reply.js';
import { readJsonBody } from './read-json-body.js';
import type { RouteTable } from './route-table.js';

/**
 * `POST /mcp`: JSON-RPC 2.0 handed to the MCP gateway; HTTP 200 with a JSON-RPC reply whatever the
 * message (a body that is not JSON is a JSON-RPC parse error), 202 for a notification.
 */
export function addMcpRoute(table: RouteTable, context: ServerContext): void {
  table.add('POST', '/mcp', async ({ request, response }) => {
    let message: unknown;
    try {
      message = await readJsonBody(request, context.limits.maxMessageBytes);
    } catch (error) {
      if (error instanceof SessionError && error.code === 'INVALID_JSON') {
        sendJson(response, 200, {
          jsonrpc: '2.0',
          id: null,
          error: { code: -32700, message: 'parse error' },
        });
      } else {
        sendError(response, error);
      }
      return;
    }
    const caller = { host: context.host, owner: ownerOf(request, context) };
    if (await context.mcp.handleHttp?.(request, response, message, caller)) return;
    const reply = await context.mcp.handleJsonRpc(message ?? {}, caller);
    if (reply === undefined) {
      response.writeHead(202).end();
      return;
    }
    sendJson(response, 200, reply);
  });
  // The server-to-client stream and the end of a Streamable HTTP session.
  for (const method of ['GET', 'DELETE'] as const) {
    table.add(method, '/mcp', async ({ request, response }) => {
      const caller = { host: context.host, owner: ownerOf(request, context) };
      if (await context.mcp.handleHttp?.(request, response, undefined, caller)) return;
      sendError(
        response,
        new SessionError('METHOD_NOT_ALLOWED', `${method} /mcp: this server has no MCP sessions`),
      );
    });
  }
}
