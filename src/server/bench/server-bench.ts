import { Agent, request } from 'node:http';
import WebSocket from 'ws';
import { type BenchFigure, figure } from '../../harness/bench/bench-figure.js';
import { type RunningServer, startServer } from '../app/start-server.js';
import { processTreeRssBytes } from './process-tree-rss.js';

/** Settings of the server figures. */
export interface ServerBenchOptions {
  /** Round trips per step figure. */
  readonly samples: number;
  /** Sessions opened (and closed) for the sessions-per-second figure. */
  readonly sessions: number;
  /** Idle sessions held for the memory figure. */
  readonly idleSessions: number;
  /** Dataset of every figure (default demo/sql on SQLite). */
  readonly dataset?: string;
  readonly onProgress?: (message: string) => void;
}

const GROUP = 'server (demo/sql)';
const ACTION = 'SELECT 1';

/**
 * The environment server's figures, measured with real clients over loopback (the `ws` client; a
 * node:http keep-alive agent): a WebSocket step round trip and an HTTP session step round trip (both
 * on SQLite, target p50 ≤ 2 ms and ≤ 4 ms), sessions opened per second (WS open, reset, close), and
 * the memory of an idle session after its reset (RSS delta of this process and its children: server
 * and client sides, and the env's worker processes). On demo/sql each new session's env starts its
 * own SQLite worker process, which bounds the sessions-per-second figure.
 */
export async function runServerBench(options: ServerBenchOptions): Promise<BenchFigure[]> {
  const server = await startServer({
    port: 0,
    dataset: options.dataset ?? 'demo/sql',
    maxSessions: Math.max(options.idleSessions, 8) + 8,
  });
  try {
    const base = { backend: 'loopback', group: GROUP };
    const progress = options.onProgress ?? (() => {});
    progress('server ws step');
    const ws = await wsSteps(server, options.samples);
    progress('server http step');
    const http = await httpSteps(server, options.samples);
    progress('server sessions per second');
    const rate = await sessionsPerSecond(server, options.sessions);
    progress('server idle session memory');
    const idle = await idleSessionMib(server, options.idleSessions);
    return [
      figure(
        { ...base, name: 'server.ws-step', unit: 'ms', target: { op: '<=', value: 2, stat: 'p50' } },
        ws,
      ),
      figure(
        { ...base, name: 'server.http-step', unit: 'ms', target: { op: '<=', value: 4, stat: 'p50' } },
        http,
      ),
      figure({ ...base, name: 'server.sessions-per-s', unit: 'sessions/s' }, [rate]),
      figure({ ...base, name: 'server.idle-session-mib', unit: 'MiB' }, [idle]),
    ];
  } finally {
    await server.close();
  }
}

/** A WS client that sends a frame and waits for its reply. */
class BenchSocket {
  readonly #socket: WebSocket;
  #reply: ((text: string) => void) | undefined;

  private constructor(socket: WebSocket) {
    this.#socket = socket;
    socket.on('message', (data) => this.#reply?.(String(data)));
  }

  static async open(url: string): Promise<BenchSocket> {
    const socket = new WebSocket(url, { perMessageDeflate: false });
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
    });
    return new BenchSocket(socket);
  }

  send(frame: object): Promise<{ type: string; data: { done?: boolean } }> {
    return new Promise((resolve, reject) => {
      this.#reply = (text) => {
        const reply = JSON.parse(text) as { type: string; data: { done?: boolean; message?: string } };
        if (reply.type === 'error') reject(new Error(`server bench: ${reply.data.message}`));
        else resolve(reply);
      };
      this.#socket.send(JSON.stringify(frame));
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => {
      this.#socket.once('close', () => resolve());
      this.#socket.close();
    });
  }
}

const wsUrl = (server: RunningServer) => `${server.url.replace(/^http/, 'ws')}/ws`;
const LONG_EPISODE = { index: 0, max_turns: 1_000_000 };

async function wsSteps(server: RunningServer, samples: number): Promise<number[]> {
  const socket = await BenchSocket.open(wsUrl(server));
  try {
    await socket.send({ type: 'reset', data: LONG_EPISODE });
    const step = { type: 'step', data: { code: ACTION } };
    for (let i = 0; i < 50; i += 1) await socket.send(step);
    const times: number[] = [];
    for (let i = 0; i < samples; i += 1) {
      const started = performance.now();
      await socket.send(step);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    await socket.close();
  }
}

async function httpSteps(server: RunningServer, samples: number): Promise<number[]> {
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const post = (path: string, body: object, sessionId?: string) =>
    new Promise<Record<string, unknown>>((resolve, reject) => {
      const text = JSON.stringify(body);
      const req = request(
        `${server.url}${path}`,
        {
          method: 'POST',
          agent,
          headers: {
            'content-type': 'application/json',
            'content-length': Buffer.byteLength(text),
            ...(sessionId ? { 'x-session-id': sessionId } : {}),
          },
        },
        (response) => {
          const chunks: Buffer[] = [];
          response.on('data', (chunk: Buffer) => chunks.push(chunk));
          response.on('end', () => {
            const reply = JSON.parse(Buffer.concat(chunks).toString('utf8')) as Record<string, unknown>;
            if ((response.statusCode ?? 500) >= 300)
              reject(new Error(`server bench: ${JSON.stringify(reply)}`));
            else resolve(reply);
          });
        },
      );
      req.on('error', reject);
      req.end(text);
    });
  try {
    const { session_id: id } = (await post('/intercode/sessions', {})) as { session_id: string };
    await post('/reset', LONG_EPISODE, id);
    const body = { action: { code: ACTION } };
    for (let i = 0; i < 50; i += 1) await post('/step', body, id);
    const times: number[] = [];
    for (let i = 0; i < samples; i += 1) {
      const started = performance.now();
      await post('/step', body, id);
      times.push(performance.now() - started);
    }
    return times;
  } finally {
    agent.destroy();
  }
}

async function sessionsPerSecond(server: RunningServer, sessions: number): Promise<number> {
  const url = wsUrl(server);
  const started = performance.now();
  for (let i = 0; i < sessions; i += 1) {
    const socket = await BenchSocket.open(url);
    await socket.send({ type: 'reset', data: { seed: i } });
    await socket.close();
  }
  return sessions / ((performance.now() - started) / 1000);
}

async function idleSessionMib(server: RunningServer, count: number): Promise<number> {
  const settle = () => new Promise((resolve) => setTimeout(resolve, 200));
  const gc = (globalThis as { gc?: () => void }).gc;
  gc?.();
  await settle();
  const before = processTreeRssBytes();
  const sockets: BenchSocket[] = [];
  try {
    for (let i = 0; i < count; i += 1) {
      const socket = await BenchSocket.open(wsUrl(server));
      sockets.push(socket);
      await socket.send({ type: 'reset', data: { seed: i } });
    }
    gc?.();
    await settle();
    return (processTreeRssBytes() - before) / count / (1024 * 1024);
  } finally {
    await Promise.all(sockets.map((socket) => socket.close()));
  }
}
