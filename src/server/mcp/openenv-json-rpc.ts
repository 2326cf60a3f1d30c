import type { McpServer } from '@modelcontextprotocol/sdk/server/mcp.js';
import type { JSONRPCMessage } from '@modelcontextprotocol/sdk/types.js';
import type { EnvSession } from '../session/env-session.js';
import { SessionError } from '../session/session-error.js';
import type { SessionRegistry } from '../session/session-registry.js';
import { createMcpServer } from './create-mcp-server.js';
import { JsonRpcChannel } from './json-rpc-channel.js';
import type { McpEpisode } from './mcp-episode.js';
import { SessionEpisode } from './session-episode.js';

/** A JSON-RPC 2.0 reply object (a result or an error, always with `jsonrpc` and `id`). */
export type JsonRpcReply = Record<string, unknown> & { jsonrpc: '2.0'; id: string | number | null };

/** JSON-RPC error codes (OpenEnv uses the standard ones, and -32000 for capacity). */
export const JSON_RPC = {
  invalidRequest: -32600,
  methodNotFound: -32601,
  invalidParams: -32602,
  internal: -32603,
  server: -32000,
} as const;

export function jsonRpcError(
  id: string | number | null,
  code: number,
  message: string,
  data?: Record<string, unknown>,
): JsonRpcReply {
  return { jsonrpc: '2.0', id, error: { code, message, ...(data ? { data } : {}) } };
}

/** An episode for listing tools only: no session behind it, so any call says how to get one. */
const NO_SESSION: McpEpisode = {
  task: () => undefined,
  reset: () => Promise.reject(noSession()),
  execute: () => Promise.reject(noSession()),
  submit: () => Promise.reject(noSession()),
  close: () => Promise.resolve(),
};

function noSession(): Error {
  return new Error('no session: call openenv/session/create and pass its session_id');
}

interface Bound {
  readonly server: McpServer;
  readonly channel: JsonRpcChannel;
}

/**
 * OpenEnv's JSON-RPC on `POST /mcp` and in WebSocket `mcp` frames: `openenv/session/create` and
 * `openenv/session/close`, and the MCP methods (`tools/list`, `tools/call`, `resources/read`, …)
 * of the session named by `params.session_id` (or, over WebSocket, the connection's session),
 * answered by the same MCP server as the other transports. Every request gets one JSON-RPC reply;
 * a notification none.
 */
export class OpenEnvJsonRpc {
  readonly #sessions: SessionRegistry;
  readonly #version: string;
  readonly #bound = new WeakMap<EnvSession, Bound>();
  #catalog: Bound | undefined;

  constructor(sessions: SessionRegistry, version: string) {
    this.#sessions = sessions;
    this.#version = version;
  }

  /** Answers one message; `session` is the WebSocket connection's, `owner` counts HTTP sessions. */
  async handle(
    body: unknown,
    options: { session?: EnvSession; owner?: string } = {},
  ): Promise<JsonRpcReply | undefined> {
    const id = idOf(body);
    if (!isObject(body) || body.jsonrpc !== '2.0' || typeof body.method !== 'string') {
      return jsonRpcError(
        id,
        JSON_RPC.invalidRequest,
        'invalid request: expected a JSON-RPC 2.0 object with a method',
      );
    }
    const params = isObject(body.params) ? body.params : {};
    if (body.params !== undefined && !isObject(body.params)) {
      return jsonRpcError(id, JSON_RPC.invalidParams, 'params must be an object');
    }
    try {
      switch (body.method) {
        case 'openenv/session/create':
          if (options.session) return { jsonrpc: '2.0', id, result: { session_id: options.session.id } };
          return {
            jsonrpc: '2.0',
            id,
            result: {
              session_id: this.#sessions.open({
                ...(options.owner ? { owner: options.owner } : {}),
                transport: 'mcp',
              }).id,
            },
          };
        case 'openenv/session/close': {
          const sessionId = params.session_id;
          if (typeof sessionId !== 'string')
            return jsonRpcError(id, JSON_RPC.invalidParams, 'params.session_id (a string) is required');
          if (!(await this.#sessions.close(sessionId, 'deleted')))
            return jsonRpcError(id, JSON_RPC.invalidParams, `no session ${sessionId}`);
          return { jsonrpc: '2.0', id, result: { session_id: sessionId, closed: true } };
        }
      }
      const { session_id: sessionId, ...rest } = params;
      let session = options.session;
      if (!session && sessionId !== undefined) {
        session = typeof sessionId === 'string' ? this.#sessions.get(sessionId) : undefined;
        if (!session) return jsonRpcError(id, JSON_RPC.invalidParams, `no session ${String(sessionId)}`);
      }
      if (
        !session &&
        body.method !== 'tools/list' &&
        body.method !== 'initialize' &&
        body.method !== 'ping'
      ) {
        return jsonRpcError(
          id,
          JSON_RPC.invalidParams,
          `${body.method} needs params.session_id: call openenv/session/create first`,
        );
      }
      session?.touch();
      const bound = session ? this.#bind(session) : this.#catalogServer();
      const message = { ...body, params: rest } as JSONRPCMessage;
      const reply = await bound.channel.request(message);
      // A notification (no id) has no reply: HTTP 202, no WebSocket frame.
      return reply as JsonRpcReply | undefined;
    } catch (error) {
      if (error instanceof SessionError) {
        const code = error.code === 'CAPACITY_REACHED' ? JSON_RPC.server : JSON_RPC.internal;
        return jsonRpcError(id, code, error.message, { code: error.code, ...error.extra });
      }
      return jsonRpcError(id, JSON_RPC.internal, error instanceof Error ? error.message : String(error));
    }
  }

  #bind(session: EnvSession): Bound {
    let bound = this.#bound.get(session);
    if (!bound) {
      bound = this.#connect(new SessionEpisode(session));
      this.#bound.set(session, bound);
    }
    return bound;
  }

  #catalogServer(): Bound {
    this.#catalog ??= this.#connect(NO_SESSION);
    return this.#catalog;
  }

  #connect(episode: McpEpisode): Bound {
    const server = createMcpServer(episode, { version: this.#version });
    const channel = new JsonRpcChannel();
    void server.connect(channel);
    return { server, channel };
  }
}

function isObject(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function idOf(body: unknown): string | number | null {
  const id = isObject(body) ? body.id : undefined;
  return typeof id === 'string' || typeof id === 'number' ? id : null;
}
