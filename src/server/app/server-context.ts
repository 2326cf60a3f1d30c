import type { IncomingMessage } from 'node:http';
import type { SessionHost } from '../session/session-host.js';
import type { McpGateway } from './mcp-gateway.js';

/** Limits of a running server (the `intercode serve` flags). */
export interface ServerLimits {
  readonly maxMessageBytes: number;
  readonly stepTimeoutMs: number;
  readonly idleTimeoutMs: number;
  /** Interval of the server's WS pings; a peer that misses two pongs is dropped. */
  readonly pingIntervalMs: number;
}

/** What the HTTP routes and the WebSocket endpoint share. */
export interface ServerContext {
  readonly host: SessionHost;
  readonly limits: ServerLimits;
  /** The bearer token every endpoint but `GET /health` needs; none: no auth. */
  readonly token: string | undefined;
  /** The package version (`/metadata`). */
  readonly version: string;
  /** The MCP gateway (the default answers JSON-RPC errors). */
  readonly mcp: McpGateway;
  /** True once shutdown began: no new sessions, not ready. */
  readonly shuttingDown: boolean;
  /** Live sandboxes of this server process. */
  liveSandboxes(): number;
}

/** Who is asking: the bearer token when the server has one, else the client address (for per-owner counts). */
export function ownerOf(request: IncomingMessage, context: ServerContext): string {
  return context.token !== undefined ? 'token' : (request.socket.remoteAddress ?? '');
}
