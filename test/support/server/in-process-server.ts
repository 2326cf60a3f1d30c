import type { ServerOptions } from '../../../src/server/app/server-options.js';
import { type RunningServer, startServer } from '../../../src/server/app/start-server.js';

/** A reply of {@link InProcessServer.call}: the status and the parsed JSON body (`{}` when empty). */
export interface JsonReply<J> {
  readonly status: number;
  readonly json: J;
}

/**
 * One server of the library's `startServer` in the test's process on a loopback port, and JSON calls
 * to it. `close()` (each test's `afterEach`) stops it.
 */
export class InProcessServer {
  #server: RunningServer | undefined;

  async serve(options: ServerOptions = {}): Promise<RunningServer> {
    this.#server = await startServer({ port: 0, ...options });
    return this.#server;
  }

  /** `body` is sent as JSON, or as it is when a string (malformed bodies). */
  async call<J = Record<string, unknown>>(
    method: string,
    path: string,
    body?: unknown,
    headers: Record<string, string> = {},
  ): Promise<JsonReply<J>> {
    if (!this.#server) throw new Error('call() before serve()');
    const response = await fetch(`${this.#server.url}${path}`, {
      method,
      headers: { 'content-type': 'application/json', ...headers },
      ...(body !== undefined ? { body: typeof body === 'string' ? body : JSON.stringify(body) } : {}),
    });
    const text = await response.text();
    return { status: response.status, json: (text === '' ? {} : JSON.parse(text)) as J };
  }

  async close(): Promise<void> {
    const server = this.#server;
    this.#server = undefined;
    await server?.close();
  }
}
