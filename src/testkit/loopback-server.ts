import { connect, createServer, type Server } from 'node:net';

/** A TCP server on the host's 127.0.0.1 that counts the connections it accepted. */
export class LoopbackServer {
  readonly #server: Server;
  readonly port: number;
  #connections = 0;

  private constructor(server: Server, port: number) {
    this.#server = server;
    this.port = port;
  }

  static async start(): Promise<LoopbackServer> {
    let accepted: (() => void) | undefined;
    const server = createServer((socket) => {
      accepted?.();
      socket.end('hello from the host\n');
      socket.on('error', () => {});
    });
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(0, '127.0.0.1', () => resolve());
    });
    const address = server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP port');
    const instance = new LoopbackServer(server, address.port);
    accepted = () => {
      instance.#connections += 1;
    };
    return instance;
  }

  /** Connections accepted so far. */
  get connections(): number {
    return this.#connections;
  }

  /** Connects from the host itself (the control): resolves with the server's greeting. */
  connectFromHost(): Promise<string> {
    return new Promise((resolve, reject) => {
      let text = '';
      const socket = connect(this.port, '127.0.0.1');
      socket.setEncoding('utf8');
      socket.on('data', (chunk: string) => {
        text += chunk;
      });
      socket.on('end', () => resolve(text));
      socket.on('error', reject);
    });
  }

  close(): Promise<void> {
    return new Promise((resolve) => this.#server.close(() => resolve()));
  }
}
