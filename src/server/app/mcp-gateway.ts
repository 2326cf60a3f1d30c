import type { EnvSession } from '../session/env-session.js';
import type { SessionHost } from '../session/session-host.js';

/** Where a JSON-RPC message came from. */
export interface McpCallContext {
  /** The session layer (HTTP `/mcp` sessions are the gateway's to open and close through it). */
  readonly host: SessionHost;
  /** The WebSocket connection's session, for a `{"type":"mcp"}` frame; absent for `POST /mcp`. */
  readonly session?: EnvSession;
  /** Who asked (the bearer token, else the client address), for the per-owner session count. */
  readonly owner: string;
}

/**
 * The MCP side of the server: `POST /mcp` bodies and WS `mcp` frames are handed to it. It answers
 * with a JSON-RPC response object (or `undefined` for a notification: HTTP 202, no WS frame).
 */
export interface McpGateway {
  handleJsonRpc(message: unknown, context: McpCallContext): Promise<object | undefined>;
  /** Called at shutdown after the sessions are closed. */
  close?(): Promise<void>;
}

/**
 * The gateway of a server without MCP tools: a valid JSON-RPC request gets `-32601` (method not
 * found), anything else `-32600` (invalid request), so `openenv validate`'s `POST /mcp {}` check
 * gets the HTTP 200 JSON-RPC reply it wants.
 */
export const NO_MCP_TOOLS: McpGateway = {
  async handleJsonRpc(message) {
    const request =
      typeof message === 'object' && message !== null && !Array.isArray(message)
        ? (message as Record<string, unknown>)
        : undefined;
    const id =
      request && (typeof request.id === 'string' || typeof request.id === 'number') ? request.id : null;
    if (request?.jsonrpc === '2.0' && typeof request.method === 'string') {
      if (!('id' in request)) return undefined;
      return { jsonrpc: '2.0', id, error: { code: -32601, message: `method not found: ${request.method}` } };
    }
    return {
      jsonrpc: '2.0',
      id: null,
      error: { code: -32600, message: 'invalid request: not a JSON-RPC 2.0 request' },
    };
  },
};
