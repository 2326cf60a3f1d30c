import type { IncomingMessage, Server } from 'node:http';
import type { Duplex } from 'node:stream';
import { type WebSocket, WebSocketServer } from 'ws';
import { ownerOf, type ServerContext } from '../app/server-context.js';
import { tokenMatches } from '../http/bearer-auth.js';
import { SessionError } from '../session/session-error.js';
import type { SessionEndReason } from '../session/session-registry.js';
import { CLOSE, WsConnection } from './ws-connection.js';

/** The `/ws` endpoint attached to an HTTP server. */
export interface WsEndpoint {
  /** Open connections. */
  readonly connections: number;
  /** Stops the pings and refuses new upgrades (sessions are closed by the registry). */
  close(): Promise<void>;
}

const CLOSE_OF: Record<SessionEndReason, [number, string]> = {
  idle: [CLOSE.normal, 'idle timeout'],
  shutdown: [CLOSE.goingAway, 'server shutting down'],
  deleted: [CLOSE.normal, 'session closed'],
};

/**
 * Serves `/ws` on `server` (the `ws` package in noServer mode): the token is checked on the upgrade
 * request (header or `?token=`; 401 before upgrading), each connection gets a session (over capacity:
 * a CAPACITY_REACHED error frame, then close 1013), frames over the message limit close the
 * connection with 1009, and a ping every `pingIntervalMs` drops peers that miss two pongs.
 */
export function attachWsEndpoint(server: Server, context: ServerContext): WsEndpoint {
  const wss = new WebSocketServer({
    noServer: true,
    maxPayload: context.limits.maxMessageBytes,
    clientTracking: false,
  });
  const live = new Set<WsConnection>();
  const sockets = new Set<WebSocket>();
  let closing = false;

  server.on('upgrade', (request: IncomingMessage, socket: Duplex, head: Buffer) => {
    const url = new URL(request.url ?? '/', 'http://server');
    if (url.pathname !== '/ws')
      return refuse(socket, 404, 'NOT_FOUND', `no WebSocket endpoint ${url.pathname}`);
    if (closing) return refuse(socket, 503, 'CAPACITY_REACHED', 'the server is shutting down');
    if (
      context.token !== undefined &&
      !tokenMatches(context.token, request.headers.authorization, url.searchParams.get('token'))
    ) {
      return refuse(
        socket,
        401,
        'UNAUTHORIZED',
        'missing or wrong bearer token (Authorization header or ?token=)',
      );
    }
    wss.handleUpgrade(request, socket, head, (ws) => {
      const owner = ownerOf(request, context);
      let connection: WsConnection | undefined;
      ws.on('error', () => ws.terminate());
      sockets.add(ws);
      ws.on('close', () => sockets.delete(ws));
      try {
        const session = context.host.sessions.open({
          owner,
          transport: 'ws',
          onEnd: (reason) => connection?.close(...CLOSE_OF[reason]),
        });
        connection = new WsConnection(ws, session, context, owner);
        live.add(connection);
        ws.on('close', () => {
          live.delete(connection!);
          void context.host.sessions.close(session.id);
        });
      } catch (thrown) {
        const error =
          thrown instanceof SessionError
            ? thrown
            : new SessionError('FACTORY_ERROR', thrown instanceof Error ? thrown.message : String(thrown), {
                extra: { factory_name: 'intercode' },
              });
        ws.send(
          JSON.stringify({
            type: 'error',
            data: { message: error.message, code: error.code, ...error.extra },
          }),
        );
        ws.close(error.code === 'CAPACITY_REACHED' ? CLOSE.tryAgainLater : CLOSE.internalError, error.code);
      }
    });
  });

  const pinger = setInterval(() => {
    for (const connection of live) connection.ping();
  }, context.limits.pingIntervalMs);
  pinger.unref();

  return {
    get connections() {
      return live.size;
    },
    async close() {
      closing = true;
      clearInterval(pinger);
      for (const connection of live) connection.close(CLOSE.goingAway, 'server shutting down');
      // A peer that does not answer the close handshake within a second is cut.
      const deadline = Date.now() + 1000;
      while (sockets.size > 0 && Date.now() < deadline)
        await new Promise((resolve) => setTimeout(resolve, 20));
      for (const socket of sockets) socket.terminate();
      await new Promise<void>((resolve) => wss.close(() => resolve()));
    },
  };
}

/** Answers an upgrade request with an HTTP error (a JSON body like the HTTP endpoints') and closes it. */
function refuse(socket: Duplex, status: number, code: string, detail: string): void {
  const body = JSON.stringify({ detail, code });
  const reason = { 401: 'Unauthorized', 404: 'Not Found', 503: 'Service Unavailable' }[status] ?? 'Error';
  socket.end(
    `HTTP/1.1 ${status} ${reason}\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
  );
}
