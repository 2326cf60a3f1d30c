import { type ChildProcess, spawn } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Redis } from 'ioredis';

/** A free TCP port on loopback (the kernel's pick, released again at once). */
async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const address = server.address();
      server.close(() => resolve(typeof address === 'object' && address ? address.port : 0));
    });
  });
}

export interface PrivateRedisOptions {
  /** Append-only file on (default true): a restart keeps the data. */
  readonly appendOnly?: boolean;
  /** The `redis-server` program (default: the one on PATH). */
  readonly program?: string;
}

/**
 * A `redis-server` of our own on a free loopback port, in its own temporary folder, never the
 * system's service: the tests and `intercode bench` start one and stop it by its pid.
 */
export class PrivateRedis {
  readonly port: number;
  readonly dir: string;
  readonly #options: PrivateRedisOptions;
  #child: ChildProcess | undefined;

  private constructor(port: number, dir: string, options: PrivateRedisOptions) {
    this.port = port;
    this.dir = dir;
    this.#options = options;
  }

  static async start(options: PrivateRedisOptions = {}): Promise<PrivateRedis> {
    const dir = mkdtempSync(join(tmpdir(), 'intercode-redis-'));
    const redis = new PrivateRedis(await freePort(), dir, options);
    try {
      await redis.startAgain();
    } catch (error) {
      rmSync(dir, { recursive: true, force: true });
      throw error;
    }
    return redis;
  }

  get url(): string {
    return `redis://127.0.0.1:${this.port}`;
  }

  get pid(): number | undefined {
    return this.#child?.pid;
  }

  /** Starts the server (again, after {@link stop}) on the same port and folder; resolves when it answers. */
  async startAgain(options: { readonly dropData?: boolean } = {}): Promise<void> {
    if (options.dropData) {
      rmSync(this.dir, { recursive: true, force: true });
      mkdirSync(this.dir);
    }
    const args = ['--port', String(this.port), '--bind', '127.0.0.1', '--dir', this.dir, '--save', ''];
    args.push('--appendonly', this.#options.appendOnly === false ? 'no' : 'yes', '--appendfsync', 'everysec');
    const child = spawn(this.#options.program ?? 'redis-server', args, { stdio: 'ignore' });
    this.#child = child;
    const exited = new Promise<never>((_, reject) => {
      child.once('error', reject);
      child.once('exit', (code) => reject(new Error(`redis-server exited with ${code} before it answered`)));
    });
    const client = new Redis({
      port: this.port,
      host: '127.0.0.1',
      lazyConnect: true,
      retryStrategy: () => 50,
    });
    client.on('error', () => {});
    try {
      await Promise.race([
        (async () => {
          for (;;) {
            try {
              if (client.status === 'wait') await client.connect();
              if ((await client.ping()) === 'PONG') return;
            } catch {
              await new Promise((resolve) => setTimeout(resolve, 50));
            }
          }
        })(),
        exited,
      ]);
    } finally {
      client.disconnect();
    }
  }

  /** Stops the server (SIGTERM to its pid, SIGKILL after 10 s) and waits until it is gone. */
  async stop(): Promise<void> {
    const child = this.#child;
    this.#child = undefined;
    if (!child || child.exitCode !== null || child.signalCode !== null) return;
    const gone = new Promise<void>((resolve) => child.once('exit', () => resolve()));
    child.kill('SIGTERM');
    const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
    await gone;
    clearTimeout(timer);
  }

  /** Stops the server and removes its folder. */
  async close(): Promise<void> {
    await this.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}
