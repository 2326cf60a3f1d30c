import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { EnvSession } from '../session/env-session.js';
import { SessionError } from '../session/session-error.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { createMcpServer } from './create-mcp-server.js';
import { JSON_RPC, type JsonRpcReply, jsonRpcError, OpenEnvJsonRpc } from './openenv-json-rpc.js';
import { SessionEpisode } from './session-episode.js';

export interface McpGatewayOptions {
  /** The server's sessions: an MCP session is one of them (capacity, idle reaper, shutdown). */
  readonly sessions: SessionRegistry;
  /** The server's version in MCP `initialize`. */
  readonly version: string;
}

/**
 * The server's `/mcp`. HTTP: an MCP client (an `initialize`, then requests carrying the
 * `Mcp-Session-Id` header) is served by the SDK's Streamable HTTP transport, one server session per
 * MCP session (its id is the session's id); any other JSON-RPC body is OpenEnv's
 * ({@link OpenEnvJsonRpc}), answered with HTTP 200. WebSocket `mcp` frames go to
 * {@link handleJsonRpc} with the connection's session.
 */
export class McpGateway {
  readonly #sessions: SessionRegistry;
  readonly #version: string;
  readonly #openEnv: OpenEnvJsonRpc;
  readonly #transports = new Map<string, StreamableHTTPServerTransport>();

  constructor(options: McpGatewayOptions) {
    this.#sessions = options.sessions;
    this.#version = options.version;
    this.#openEnv = new OpenEnvJsonRpc(options.sessions, options.version);
  }

  /** MCP sessions open over Streamable HTTP. */
  get streamableSessions(): number {
    return this.#transports.size;
  }

  /**
   * Answers a request to `/mcp` (POST, and GET/DELETE of a Streamable HTTP session). `body` is the
   * parsed JSON body of a POST (the app parsed it and enforced its size limit); `owner` is who the
   * session counts against (the token, or the client address).
   */
  async handleHttp(req: IncomingMessage, res: ServerResponse, body: unknown, owner = ''): Promise<void> {
    const header = req.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const transport = this.#transports.get(sessionId);
      if (!transport) {
        return reply(res, 404, jsonRpcError(null, -32001, `no MCP session ${sessionId}: initialize again`));
      }
      this.#sessions.get(sessionId)?.touch();
      return transport.handleRequest(req, res, body);
    }
    if (req.method === 'POST' && isInitializeRequest(body)) return this.#initialize(req, res, body, owner);
    if (req.method !== 'POST') {
      return reply(
        res,
        405,
        jsonRpcError(null, JSON_RPC.invalidRequest, `${req.method} /mcp needs an Mcp-Session-Id header`),
      );
    }
    return reply(res, 200, await this.#openEnv.handle(body, { owner }));
  }

  /** A WebSocket `{"type":"mcp","data":…}` frame's data, for the connection's session: one reply. */
  handleJsonRpc(body: unknown, session?: EnvSession): Promise<JsonRpcReply> {
    return this.#openEnv.handle(body, session ? { session } : {});
  }

  /** Closes every Streamable HTTP session (their server sessions are closed by the registry). */
  async close(): Promise<void> {
    const transports = [...this.#transports.values()];
    this.#transports.clear();
    await Promise.all(transports.map((transport) => transport.close().catch(() => {})));
  }

  async #initialize(req: IncomingMessage, res: ServerResponse, body: unknown, owner: string): Promise<void> {
    let session: EnvSession;
    try {
      session = this.#sessions.open({
        owner,
        // The registry ended it (idle, shutdown, DELETE): the MCP session ends with it.
        onEnd: () => {
          const transport = this.#transports.get(session.id);
          this.#transports.delete(session.id);
          void transport?.close().catch(() => {});
        },
      });
    } catch (error) {
      if (error instanceof SessionError) {
        return reply(
          res,
          200,
          jsonRpcError(idOf(body), JSON_RPC.server, error.message, { code: error.code, ...error.extra }),
        );
      }
      throw error;
    }
    const transport = new StreamableHTTPServerTransport({
      sessionIdGenerator: () => session.id,
      enableJsonResponse: true,
      onsessioninitialized: (id) => {
        this.#transports.set(id, transport);
      },
    });
    transport.onclose = () => {
      this.#transports.delete(session.id);
      void this.#sessions.close(session.id);
    };
    const server = createMcpServer(new SessionEpisode(session), { version: this.#version });
    await server.connect(transport);
    await transport.handleRequest(req, res, body);
    // Refused by the transport (a wrong Accept header, say): no MCP session, so no server session.
    if (!this.#transports.has(session.id)) {
      await server.close().catch(() => {});
      await this.#sessions.close(session.id);
    }
  }
}

function reply(res: ServerResponse, status: number, body: JsonRpcReply): void {
  const text = JSON.stringify(body);
  res.writeHead(status, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
  res.end(text);
}

function idOf(body: unknown): string | number | null {
  const id = (body as { id?: unknown } | null)?.id;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
