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
    const reply = await context.mcp.handleJsonRpc(message ?? {}, {
      host: context.host,
      owner: ownerOf(request, context),
    });
    if (reply === undefined) {
      response.writeHead(202).end();
      return;
    }
    sendJson(response, 200, reply);
  });
}
