import type { IncomingMessage, ServerResponse } from 'node:http';
import { StreamableHTTPServerTransport } from '@modelcontextprotocol/sdk/server/streamableHttp.js';
import { isInitializeRequest } from '@modelcontextprotocol/sdk/types.js';
import type { McpCallContext, McpGateway } from '../app/mcp-gateway.js';
import type { EnvSession } from '../session/env-session.js';
import { SessionError } from '../session/session-error.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { createMcpServer } from './create-mcp-server.js';
import { JSON_RPC, type JsonRpcReply, jsonRpcError, OpenEnvJsonRpc } from './openenv-json-rpc.js';
import { SessionEpisode } from './session-episode.js';

/** What {@link McpToolGateway.handleHttp} needs of the call besides the request. */
export type McpHttpContext = Pick<McpCallContext, 'host' | 'owner'>;

/**
 * The server's MCP side: the episode tools (`execute`, `submit`, `reset`, the task resource) on the
 * server's sessions. It answers the app's {@link McpGateway} hook (OpenEnv's JSON-RPC on
 * `POST /mcp`, WebSocket `mcp` frames on the connection's session) and, through
 * {@link handleHttp}, MCP clients over Streamable HTTP: an `initialize` without an `Mcp-Session-Id`
 * header opens a server session and an MCP session with the same id, served by the SDK's transport.
 */
export class McpToolGateway implements McpGateway {
  readonly #version: string;
  readonly #openEnv = new WeakMap<SessionRegistry, OpenEnvJsonRpc>();
  readonly #transports = new Map<string, StreamableHTTPServerTransport>();

  /** `version`: the server's version in MCP `initialize` (the package version). */
  constructor(options: { readonly version: string }) {
    this.#version = options.version;
  }

  /** MCP sessions open over Streamable HTTP. */
  get streamableSessions(): number {
    return this.#transports.size;
  }

  /** OpenEnv's JSON-RPC and WebSocket `mcp` frames: one reply, or undefined for a notification. */
  async handleJsonRpc(message: unknown, context: McpCallContext): Promise<JsonRpcReply | undefined> {
    return this.#openEnvOf(context.host.sessions).handle(message, {
      ...(context.session ? { session: context.session } : {}),
      owner: context.owner,
    });
  }

  /**
   * A request to `/mcp` that belongs to a Streamable HTTP MCP session (it carries `Mcp-Session-Id`,
   * or it is an `initialize` POST): answered here in full, true returned. Anything else is left to
   * {@link handleJsonRpc} (false). `body` is the parsed JSON body of a POST.
   */
  async handleHttp(
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    context: McpHttpContext,
  ): Promise<boolean> {
    const header = request.headers['mcp-session-id'];
    const sessionId = Array.isArray(header) ? header[0] : header;
    if (sessionId !== undefined) {
      const transport = this.#transports.get(sessionId);
      if (!transport) {
        reply(response, 404, jsonRpcError(null, -32001, `no MCP session ${sessionId}: initialize again`));
        return true;
      }
      context.host.sessions.get(sessionId)?.touch();
      await transport.handleRequest(request, response, body);
      return true;
    }
    if (request.method === 'POST' && isInitializeRequest(body)) {
      await this.#initialize(request, response, body, context);
      return true;
    }
    if (request.method !== 'POST') {
      reply(
        response,
        405,
        jsonRpcError(null, JSON_RPC.invalidRequest, `${request.method} /mcp needs an Mcp-Session-Id header`),
      );
      return true;
    }
    return false;
  }

  /** Closes every Streamable HTTP session (the app closes their server sessions). */
  async close(): Promise<void> {
    const transports = [...this.#transports.values()];
    this.#transports.clear();
    await Promise.all(transports.map((transport) => transport.close().catch(() => {})));
  }

  #openEnvOf(sessions: SessionRegistry): OpenEnvJsonRpc {
    let openEnv = this.#openEnv.get(sessions);
    if (!openEnv) {
      openEnv = new OpenEnvJsonRpc(sessions, this.#version);
      this.#openEnv.set(sessions, openEnv);
    }
    return openEnv;
  }

  async #initialize(
    request: IncomingMessage,
    response: ServerResponse,
    body: unknown,
    context: McpHttpContext,
  ): Promise<void> {
    const sessions = context.host.sessions;
    let session: EnvSession;
    try {
      session = sessions.open({
        owner: context.owner,
        transport: 'mcp',
        // The registry ended it (idle, shutdown, DELETE): the MCP session ends with it.
        onEnd: () => {
          const transport = this.#transports.get(session.id);
          this.#transports.delete(session.id);
          void transport?.close().catch(() => {});
        },
      });
    } catch (error) {
      if (error instanceof SessionError) {
        const id = (body as { id: string | number }).id;
        reply(
          response,
          200,
          jsonRpcError(id, JSON_RPC.server, error.message, { code: error.code, ...error.extra }),
        );
        return;
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
      void sessions.close(session.id);
    };
    const server = createMcpServer(new SessionEpisode(session), { version: this.#version });
    await server.connect(transport);
    await transport.handleRequest(request, response, body);
    // Refused by the transport (a wrong Accept header, say): no MCP session, so no server session.
    if (!this.#transports.has(session.id)) {
      await server.close().catch(() => {});
      await sessions.close(session.id);
    }
  }
}

function reply(response: ServerResponse, status: number, body: JsonRpcReply): void {
  const text = JSON.stringify(body);
  response.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(text),
  });
  response.end(text);
}
