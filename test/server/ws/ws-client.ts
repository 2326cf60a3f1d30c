import WebSocket from 'ws';

/** A test client of `/ws`: sends a frame and waits for the next reply; records how the server closed. */
export class WsTestClient {
  readonly socket: WebSocket;
  readonly #inbox: string[] = [];
  readonly #waiting: ((text: string) => void)[] = [];
  readonly closed: Promise<{ code: number; reason: string }>;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data) => {
      const text = String(data);
      const waiter = this.#waiting.shift();
      if (waiter) waiter(text);
      else this.#inbox.push(text);
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code, reason) => resolve({ code, reason: reason.toString() }));
    });
  }

  static async connect(url: string, options: WebSocket.ClientOptions = {}): Promise<WsTestClient> {
    const socket = new WebSocket(url, options);
    const client = new WsTestClient(socket);
    await new Promise<void>((resolve, reject) => {
      socket.once('open', () => resolve());
      socket.once('error', reject);
      socket.once('unexpected-response', (_request, response) =>
        reject(new Error(`HTTP ${response.statusCode}`)),
      );
    });
    return client;
  }

  /** The next frame from the server, parsed. */
  next(): Promise<Record<string, unknown> & { type: string; data: Record<string, unknown> }> {
    const queued = this.#inbox.shift();
    if (queued !== undefined) return Promise.resolve(JSON.parse(queued));
    return new Promise((resolve) => this.#waiting.push((text) => resolve(JSON.parse(text))));
  }

  /** Sends a frame (an object is JSON-encoded) and returns the reply. */
  async send(frame: unknown): ReturnType<WsTestClient['next']> {
    this.socket.send(typeof frame === 'string' ? frame : JSON.stringify(frame));
    return this.next();
  }

  close(): void {
    this.socket.close();
  }
}
