import type { Duplex } from 'node:stream';
import type Docker from 'dockerode';
import { SandboxError } from '../../core/errors.js';
import { programSource } from '../program-source.js';

/**
 * The supervisor of every command in a Docker sandbox (`supervisor.pl`, whose header documents the
 * frames); perl-base is Essential, so every Debian root has Perl.
 */
const supervisorSource = programSource(new URL('./supervisor.pl', import.meta.url));

/** Frame types of the supervisor protocol (see `supervisor.pl`). */
type FrameType = 'G' | 'D' | 'E' | 'K';

function frame(type: FrameType, payload: Uint8Array = new Uint8Array(0)): Buffer {
  const header = Buffer.alloc(5);
  header.write(type, 0, 'latin1');
  header.writeUInt32BE(payload.length, 1);
  return Buffer.concat([header, payload]);
}

/** The byte the supervisor writes on its error stream once it runs, before it reads any frame. */
const RUNNING = 0x06;

/** Largest payload of one data frame. */
const FRAME_BYTES = 1 << 20;

export interface SupervisedExecOptions {
  readonly command: readonly string[];
  readonly cwd: string;
  readonly env: Readonly<Record<string, string>>;
  /** Called with every chunk the command writes (stdout and stderr merged, in order, unless `onStderr`). */
  readonly onOutput: (chunk: Buffer) => void;
  /** Keeps the command's stderr apart: its chunks come here. */
  readonly onStderr?: (chunk: Buffer) => void;
}

/**
 * One command in a Docker sandbox, under the supervisor: its output streamed, its standard input fed
 * through frames, and a kill that ends its whole process tree. The attached connection is also a
 * lifeline: when this process dies, the supervisor reads end-of-file and kills the tree.
 */
export class SupervisedExec {
  readonly #socket: Duplex;
  readonly #exec: Docker.Exec;
  /** Resolves with the exit code once the command and its tree are gone (137 when killed). */
  readonly exited: Promise<number>;
  #stderr = '';
  #ended = false;
  /** Resolves once the supervisor runs (its first byte, {@link RUNNING}, came), or the exec ended. */
  readonly running: Promise<void>;
  #markRunning: (() => void) | undefined;
  #onOutput: (chunk: Buffer) => void;

  private constructor(
    exec: Docker.Exec,
    socket: Duplex,
    onOutput: (chunk: Buffer) => void,
    onStderr?: (chunk: Buffer) => void,
  ) {
    this.#exec = exec;
    this.#socket = socket;
    this.#onOutput = onOutput;
    socket.on('error', () => {});
    this.running = new Promise((resolve) => {
      this.#markRunning = resolve;
    });
    const demux = new Demultiplexer(
      (chunk) => this.#onOutput(chunk),
      (data) => {
        let chunk = data;
        if (this.#markRunning) {
          if (chunk[0] === RUNNING) chunk = chunk.subarray(1);
          this.#markRunning();
          this.#markRunning = undefined;
          if (chunk.length === 0) return;
        }
        this.#stderr = (this.#stderr + chunk.toString()).slice(-2000);
        onStderr?.(chunk);
      },
    );
    socket.on('data', (chunk: Buffer) => demux.push(chunk));
    const ended = new Promise<void>((resolve) => {
      socket.once('end', resolve);
      socket.once('close', resolve);
    });
    this.exited = ended.then(async () => {
      this.#ended = true;
      this.#markRunning?.();
      socket.destroy();
      try {
        const info = await exec.inspect();
        if (info.Running) return 137;
        return info.ExitCode ?? 137;
      } catch {
        // The container is gone (reset or close): the command was killed with it.
        return 137;
      }
    });
  }

  /** Starts `command` in `container`; it runs once `go()` is called. */
  static async start(container: Docker.Container, options: SupervisedExecOptions): Promise<SupervisedExec> {
    let exec: Docker.Exec;
    let socket: Duplex;
    try {
      exec = await container.exec({
        Cmd: [
          'perl',
          '-e',
          supervisorSource(),
          '--',
          options.onStderr ? 'split' : 'merge',
          ...options.command,
        ],
        AttachStdin: true,
        AttachStdout: true,
        AttachStderr: true,
        Tty: false,
        WorkingDir: options.cwd,
        Env: Object.entries(options.env).map(([name, value]) => `${name}=${value}`),
      });
      socket = (await exec.start({ hijack: true, stdin: true, Detach: false, Tty: false })) as Duplex;
    } catch (error) {
      throw dockerFailure(error, 'cannot start a command in the sandbox');
    }
    return new SupervisedExec(exec, socket, options.onOutput, options.onStderr);
  }

  #write(data: Buffer): void {
    if (this.#ended || this.#socket.destroyed) return;
    this.#socket.write(data);
  }

  /** Sends the command's output elsewhere from now on (a shell started ahead of time is adopted). */
  set onOutput(onOutput: (chunk: Buffer) => void) {
    this.#onOutput = onOutput;
  }

  /** True once the connection has ended (the command is gone). */
  get ended(): boolean {
    return this.#ended || this.#socket.destroyed;
  }

  /** Lets the command run. */
  go(): void {
    this.#write(frame('G'));
  }

  /** Feeds bytes to the command's standard input. */
  write(data: Uint8Array): void {
    for (let at = 0; at < data.length; at += FRAME_BYTES) {
      this.#write(frame('D', data.subarray(at, at + FRAME_BYTES)));
    }
  }

  /** Closes the command's standard input (once what was written is delivered). */
  endInput(): void {
    this.#write(frame('E'));
  }

  /** Kills the command and everything it started. */
  kill(): void {
    this.#write(frame('K'));
    // A supervisor that cannot read any more (killed from inside) still loses its connection.
    setTimeout(() => this.#socket.destroy(), 2000).unref();
  }

  /** Drops the connection at once: the supervisor kills the tree when it sees end-of-file. */
  destroy(): void {
    this.#socket.destroy();
  }

  /** What the supervisor itself reported (never the command's output). */
  get stderr(): string {
    return this.#stderr;
  }

  get id(): string {
    return this.#exec.id;
  }
}

/**
 * Splits Docker's multiplexed stream (8-byte headers: stream type, three zero bytes, big-endian
 * payload length) into stdout and stderr chunks, across arbitrary chunk boundaries.
 */
export class Demultiplexer {
  readonly #stdout: (chunk: Buffer) => void;
  readonly #stderr: (chunk: Buffer) => void;
  #header = Buffer.alloc(0);
  #remaining = 0;
  #stream = 1;

  constructor(stdout: (chunk: Buffer) => void, stderr: (chunk: Buffer) => void) {
    this.#stdout = stdout;
    this.#stderr = stderr;
  }

  push(chunk: Buffer): void {
    let data = chunk;
    while (data.length > 0) {
      if (this.#remaining === 0) {
        const need = 8 - this.#header.length;
        this.#header = Buffer.concat([this.#header, data.subarray(0, need)]);
        data = data.subarray(need);
        if (this.#header.length < 8) return;
        this.#stream = this.#header[0] ?? 1;
        this.#remaining = this.#header.readUInt32BE(4);
        this.#header = Buffer.alloc(0);
        continue;
      }
      const take = Math.min(this.#remaining, data.length);
      const part = data.subarray(0, take);
      data = data.subarray(take);
      this.#remaining -= take;
      if (this.#stream === 2) this.#stderr(part);
      else this.#stdout(part);
    }
  }
}

/** A Docker API failure as a SandboxError with the daemon's message. */
export function dockerFailure(error: unknown, what: string): SandboxError {
  if (error instanceof SandboxError) return error;
  const status = (error as { statusCode?: number }).statusCode;
  const json = (error as { json?: { message?: string } }).json;
  const message = json?.message ?? (error as Error).message ?? String(error);
  if (status === 404 || status === 409) {
    return new SandboxError('SANDBOX_CLOSED', `${what}: ${message.trim()}`, { cause: error });
  }
  return new SandboxError('SANDBOX_START_FAILED', `${what}: ${message.trim()}`, { cause: error });
}

/** Waits until every one of `execs` has ended (a dropped one: its supervisor killed its tree), or `ms` milliseconds. */
export async function execsEnded(execs: readonly SupervisedExec[], ms: number): Promise<void> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  await Promise.race([
    Promise.all(execs.map((exec) => exec.exited.catch(() => undefined))),
    new Promise((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
