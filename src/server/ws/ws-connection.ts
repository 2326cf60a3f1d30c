import type { WebSocket } from 'ws';
import type { ServerContext } from '../app/server-context.js';
import type { EnvSession } from '../session/env-session.js';
import { SessionError } from '../session/session-error.js';
import { SessionRegistry } from '../session/session-registry.js';
import { looseRequestId, parseClientFrame } from './ws-frames.js';

/** WS close codes the server uses. */
export const CLOSE = { normal: 1000, goingAway: 1001, internalError: 1011, tryAgainLater: 1013 } as const;

/**
 * One `/ws` connection = one session. Frames are handled strictly one after another, and every
 * frame but `close` gets exactly one reply frame (an error frame for a bad one; the connection stays
 * open). The session's env is closed when the connection ends, whatever the cause.
 */
export class WsConnection {
  readonly #socket: WebSocket;
  readonly #session: EnvSession;
  readonly #context: ServerContext;
  readonly #owner: string;
  #queue: Promise<void> = Promise.resolve();
  /** Pings sent without a pong since. */
  missedPongs = 0;

  constructor(socket: WebSocket, session: EnvSession, context: ServerContext, owner: string) {
    this.#socket = socket;
    this.#session = session;
    this.#context = context;
    this.#owner = owner;
    socket.on('message', (data: Buffer | Buffer[] | ArrayBuffer) => {
      const text = Buffer.isBuffer(data)
        ? data.toString('utf8')
        : Array.isArray(data)
          ? Buffer.concat(data).toString('utf8')
          : Buffer.from(data).toString('utf8');
      this.#queue = this.#queue.then(() => this.#handle(text));
    });
    socket.on('pong', () => {
      this.missedPongs = 0;
    });
  }

  get session(): EnvSession {
    return this.#session;
  }

  /** Closes the socket (the registry or the server ends the session). */
  close(code: number, reason: string): void {
    if (
      this.#socket.readyState === this.#socket.OPEN ||
      this.#socket.readyState === this.#socket.CONNECTING
    ) {
      this.#socket.close(code, reason);
    }
  }

  /** One ping round of the keep-alive: a peer that missed two pongs is dropped. */
  ping(): void {
    if (this.missedPongs >= 2) {
      this.#socket.terminate();
      return;
    }
    this.missedPongs += 1;
    if (this.#socket.readyState === this.#socket.OPEN) this.#socket.ping();
  }

  async #handle(text: string): Promise<void> {
    if (this.#socket.readyState !== this.#socket.OPEN) return;
    const raw: { value?: unknown } = {};
    let requestId: string | number | undefined;
    try {
      const frame = parseClientFrame(text, raw);
      if (frame.type === 'close') {
        this.close(CLOSE.normal, 'closed by client');
        return;
      }
      requestId = frame.request_id;
      switch (frame.type) {
        case 'reset':
          return this.#send(
            { type: 'observation', data: await withDataLoc(this.#session.reset(frame.data ?? {})) },
            requestId,
          );
        case 'step':
          return this.#send({ type: 'observation', data: await this.#session.step(frame.data) }, requestId);
        case 'state':
          return this.#send({ type: 'state', data: this.#session.state() }, requestId);
        case 'fork': {
          const forked = await this.#context.host.sessions.fork(
            this.#session.id,
            frame.data.count,
            this.#owner,
          );
          return this.#send({ type: 'forked', data: SessionRegistry.forkReply(forked) }, requestId);
        }
        case 'mcp': {
          this.#session.touch();
          const reply = await this.#context.mcp.handleJsonRpc(frame.data, {
            host: this.#context.host,
            session: this.#session,
            owner: this.#owner,
          });
          if (reply !== undefined) this.#send({ type: 'mcp', data: reply }, requestId);
          return;
        }
      }
    } catch (thrown) {
      const error = SessionError.from(thrown);
      this.#send(
        {
          type: 'error',
          data: {
            message: error.message,
            code: error.code,
            ...(error.issues ? { errors: error.issues } : {}),
            ...error.extra,
          },
        },
        requestId ?? looseRequestId(raw.value),
      );
    }
  }

  #send(frame: { type: string; data: unknown }, requestId: string | number | undefined): void {
    if (this.#socket.readyState !== this.#socket.OPEN) return;
    this.#socket.send(JSON.stringify(requestId === undefined ? frame : { ...frame, request_id: requestId }));
  }
}

/** Reset-param issues are located in the frame's `data`. */
async function withDataLoc<T>(work: Promise<T>): Promise<T> {
  try {
    return await work;
  } catch (error) {
    if (error instanceof SessionError && error.issues) {
      throw new SessionError(error.code, error.message, {
        issues: error.issues.map((issue) => ({ ...issue, loc: ['data', ...issue.loc] })),
        extra: { ...error.extra },
      });
    }
    throw error;
  }
}
