import { randomBytes } from 'node:crypto';
import { SandboxError } from '../../core/errors.js';
import { shellQuote } from '../../core/shell-quote.js';
import { OutputBuffer } from '../output-buffer.js';
import type { ExecResult, ShellSession } from '../sandbox.js';
import type { BoxProcess } from './box-process.js';

/** Descriptor the shell keeps for its own replies, so user redirections cannot hide them. */
const REPLY_FD = 200;

/**
 * Reads one command per request as data (up to a NUL byte), evaluates it at the shell's top level
 * with stdin from /dev/null and stdout+stderr on the reply pipe, then reads a fresh random nonce
 * that was not readable while the command ran, and prints `nonce:exit-code:cwd` + NUL.
 */
const STEP = `IFS= read -r -d '' __ic_c; eval "$__ic_c" </dev/null >&${REPLY_FD} 2>&${REPLY_FD}; __ic_done $? >&${REPLY_FD}\n`;

export interface SessionOptions {
  readonly start: () => Promise<BoxProcess>;
  /** Shell lines run once at start (rlimits and the like). */
  readonly prelude: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

interface Running {
  readonly nonce: Buffer;
  readonly output: OutputBuffer;
  pending: Buffer;
  finish(exitCode: number | null, cwd: string | undefined, restarted: boolean): void;
}

/**
 * A persistent bash inside a sandbox, driven over pipes. One command runs at a time; a timeout
 * kills the whole process tree, keeps the partial output and restarts the shell in the same
 * working directory (variables are lost, files are kept).
 */
export class BashSession implements ShellSession {
  readonly #options: SessionOptions;
  #box: BoxProcess | undefined;
  #running: Running | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #cwd: string;
  #closed = false;

  private constructor(options: SessionOptions) {
    this.#options = options;
    this.#cwd = options.cwd;
  }

  static async open(options: SessionOptions): Promise<BashSession> {
    const session = new BashSession(options);
    await session.#start();
    return session;
  }

  get cwd(): string {
    return this.#cwd;
  }

  /** Pid of the sandbox's outer bwrap process, for diagnostics. */
  get pid(): number | undefined {
    return this.#box?.child.pid;
  }

  async #start(): Promise<void> {
    const box = await this.#options.start();
    this.#box = box;
    box.stdout.on('data', (chunk: Buffer) => this.#onData(chunk));
    box.exited.then((code) => {
      if (this.#box !== box) return;
      this.#box = undefined;
      this.#running?.finish(code, undefined, true);
    });
    const init = `exec ${REPLY_FD}>&1 2>/dev/null\n${this.#options.prelude}\n__ic_done() { IFS= read -r __ic_n; builtin printf '%s:%d:%s\\0' "$__ic_n" "$1" "$PWD"; }\n`;
    box.stdin.write(init);
    const cd = this.#cwd === this.#options.cwd ? 'true' : `cd -- ${shellQuote(this.#cwd)} 2>/dev/null`;
    const ready = await this.#send(cd, this.#options.timeoutMs, 4096);
    if (ready.exitCode === null || ready.sessionRestarted) {
      box.kill();
      const why = ready.timedOut
        ? `no answer within ${this.#options.timeoutMs} ms`
        : `exit ${ready.exitCode}`;
      const stderr = await box.stderrText();
      throw new SandboxError(
        'SANDBOX_START_FAILED',
        `the sandbox shell did not start (${why}): ${(stderr || ready.output).trim().split('\n').pop() || 'no output'}`,
      );
    }
  }

  run(command: string, options: { timeoutMs?: number; maxOutputBytes?: number } = {}): Promise<ExecResult> {
    const task = this.#queue.then(async () => {
      if (this.#closed) throw new SandboxError('SANDBOX_CLOSED', 'the session is closed');
      if (!this.#box) await this.#start();
      const result = await this.#send(
        command,
        options.timeoutMs ?? this.#options.timeoutMs,
        options.maxOutputBytes ?? this.#options.maxOutputBytes,
      );
      if (result.sessionRestarted && !this.#closed) {
        await this.#start();
      }
      return result;
    });
    this.#queue = task.catch(() => {});
    return task;
  }

  #send(command: string, timeoutMs: number, maxOutputBytes: number): Promise<ExecResult> {
    const box = this.#box!;
    const started = performance.now();
    const nonce = `__IC_${randomBytes(16).toString('hex')}`;
    return new Promise<ExecResult>((resolve) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        box.kill();
      }, timeoutMs);
      const output = new OutputBuffer(maxOutputBytes);
      const running: Running = {
        nonce: Buffer.from(nonce),
        output,
        pending: Buffer.alloc(0),
        finish: (exitCode, cwd, restarted) => {
          clearTimeout(timer);
          this.#running = undefined;
          if (cwd !== undefined) this.#cwd = cwd;
          // Bytes held back while looking for the nonce belong to the output when none came.
          if (restarted) output.push(running.pending);
          const { text, truncated } = output.result();
          resolve({
            output: text,
            exitCode: timedOut ? null : exitCode,
            timedOut,
            durationMs: performance.now() - started,
            ...(truncated ? { truncated } : {}),
            ...(restarted ? { sessionRestarted: true } : {}),
          });
        },
      };
      this.#running = running;
      box.stdin.write(`${STEP}${command.replaceAll('\0', '')}\0${nonce}\n`);
    });
  }

  #onData(chunk: Buffer): void {
    const running = this.#running;
    if (!running) return;
    let data = running.pending.length > 0 ? Buffer.concat([running.pending, chunk]) : chunk;
    const at = data.indexOf(running.nonce);
    if (at >= 0) {
      const end = data.indexOf(0, at + running.nonce.length);
      if (end < 0) {
        running.output.push(data.subarray(0, at));
        running.pending = Buffer.from(data.subarray(at));
        return;
      }
      running.output.push(data.subarray(0, at));
      const [code, ...cwdParts] = data
        .subarray(at + running.nonce.length + 1, end)
        .toString()
        .split(':');
      running.finish(Number(code), cwdParts.join(':'), false);
      return;
    }
    const keep = running.nonce.length - 1;
    if (data.length > keep) {
      running.output.push(data.subarray(0, data.length - keep));
      data = data.subarray(data.length - keep);
    }
    running.pending = Buffer.from(data);
  }

  /**
   * Kills the shell and everything it started, waits for the caller's work (the file system reset),
   * then starts a fresh shell in the initial working directory. The session object stays valid.
   */
  restart(between: () => Promise<void>): Promise<void> {
    const task = this.#queue.then(async () => {
      const box = this.#box;
      this.#box = undefined;
      if (box) {
        box.kill();
        await box.exited;
      }
      await between();
      this.#cwd = this.#options.cwd;
      await this.#start();
    });
    this.#queue = task.catch(() => {});
    return task;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const box = this.#box;
    this.#box = undefined;
    if (box) {
      box.kill();
      await box.exited;
    }
  }

  /** Synchronous kill, for process exit handlers. */
  killSync(): void {
    this.#closed = true;
    this.#box?.kill();
  }
}
