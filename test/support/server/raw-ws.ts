import WebSocket from 'ws';

/** How a WebSocket ended: the close code and reason the peer sent (1006 when it just went away). */
export interface WsClosed {
  readonly code: number;
  readonly reason: string;
}

/** A frame the server sent: its text and the text parsed as JSON (undefined when not JSON). */
export interface WsFrame {
  readonly text: string;
  readonly json: Record<string, unknown> | undefined;
}

/** The upgrade was answered with an HTTP status instead of switching protocols. */
export class WsRefused extends Error {
  constructor(
    readonly status: number,
    readonly body: string,
  ) {
    super(`WebSocket upgrade refused with HTTP ${status}`);
  }
}

/**
 * A raw WebSocket client (the `ws` package) that sends exact text frames and reads the server's
 * frames in order, one at a time: nothing is wrapped, nothing is added.
 */
export class RawWs {
  readonly socket: WebSocket;
  readonly #frames: WsFrame[] = [];
  readonly #waiters: ((frame: WsFrame | undefined) => void)[] = [];
  #closed: WsClosed | undefined;
  #pings = 0;
  readonly closed: Promise<WsClosed>;

  private constructor(socket: WebSocket) {
    this.socket = socket;
    socket.on('message', (data: WebSocket.RawData, isBinary: boolean) => {
      const text = isBinary ? `<binary ${String(data)}>` : String(data);
      let json: Record<string, unknown> | undefined;
      try {
        json = JSON.parse(text) as Record<string, unknown>;
      } catch {
        json = undefined;
      }
      const frame = { text, json };
      const waiter = this.#waiters.shift();
      if (waiter) waiter(frame);
      else this.#frames.push(frame);
    });
    this.closed = new Promise((resolve) => {
      socket.on('close', (code: number, reason: Buffer) => {
        this.#closed = { code, reason: reason.toString('utf8') };
        for (const waiter of this.#waiters.splice(0)) waiter(undefined);
        resolve(this.#closed);
      });
    });
    socket.on('ping', () => {
      this.#pings += 1;
    });
    socket.on('error', () => {
      // A reset connection ends in 'close' (1006); the tests read that.
    });
  }

  /**
   * Opens `url` (ws://…/ws); rejects with WsRefused when the upgrade is answered with a status.
   * `autoPong: false` makes a peer that never answers the server's pings.
   */
  static open(
    url: string,
    headers: Readonly<Record<string, string>> = {},
    options: { autoPong?: boolean } = {},
  ): Promise<RawWs> {
    return new Promise((resolve, reject) => {
      const socket = new WebSocket(url, {
        headers,
        handshakeTimeout: 30_000,
        autoPong: options.autoPong ?? true,
      });
      const raw = new RawWs(socket);
      socket.once('open', () => resolve(raw));
      socket.once('unexpected-response', (_req, res) => {
        const chunks: Buffer[] = [];
        res.on('data', (chunk: Buffer) => chunks.push(chunk));
        res.on('end', () => {
          reject(new WsRefused(res.statusCode ?? 0, Buffer.concat(chunks).toString('utf8')));
          socket.terminate();
        });
      });
      socket.once('error', (error) => reject(error));
    });
  }

  /** Sends one text frame exactly as given. */
  send(text: string): void {
    this.socket.send(text);
  }

  /** Sends `value` serialised as one JSON text frame. */
  sendJson(value: unknown): void {
    this.socket.send(JSON.stringify(value));
  }

  /** The next frame the server sends; rejects when the socket closes first or nothing comes in `timeoutMs`. */
  next(timeoutMs = 60_000): Promise<WsFrame> {
    const queued = this.#frames.shift();
    if (queued) return Promise.resolve(queued);
    if (this.#closed) {
      return Promise.reject(
        new Error(`socket closed (${this.#closed.code} ${this.#closed.reason}) with no frame`),
      );
    }
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = this.#waiters.indexOf(waiter);
        if (index >= 0) this.#waiters.splice(index, 1);
        reject(new Error(`no frame within ${timeoutMs} ms`));
      }, timeoutMs);
      const waiter = (frame: WsFrame | undefined): void => {
        clearTimeout(timer);
        if (frame) resolve(frame);
        else reject(new Error(`socket closed (${this.#closed?.code} ${this.#closed?.reason}) with no frame`));
      };
      this.#waiters.push(waiter);
    });
  }

  /** Sends `value` as JSON and returns the parsed reply frame (fails when the reply is not JSON). */
  async request(value: unknown, timeoutMs?: number): Promise<Record<string, unknown>> {
    this.sendJson(value);
    const frame = await this.next(timeoutMs);
    if (!frame.json) throw new Error(`reply is not JSON: ${frame.text.slice(0, 200)}`);
    return frame.json;
  }

  /** Frames received and not read yet. */
  get pending(): number {
    return this.#frames.length;
  }

  /** Pings received from the server so far. */
  get pings(): number {
    return this.#pings;
  }

  /** Whether the socket has closed. */
  get isClosed(): boolean {
    return this.#closed !== undefined;
  }

  /** Closes politely (code 1000) and waits for the close; terminates after `timeoutMs`. */
  async close(timeoutMs = 10_000): Promise<WsClosed> {
    if (this.#closed) return this.#closed;
    if (this.socket.readyState === WebSocket.OPEN) this.socket.close(1000);
    const timer = setTimeout(() => this.socket.terminate(), timeoutMs);
    const closed = await this.closed;
    clearTimeout(timer);
    return closed;
  }

  /** Drops the TCP connection without a close frame (a client that vanishes). */
  terminate(): void {
    this.socket.terminate();
  }
}
