import { SandboxError } from '../../core/errors.js';
import type { ExecResult, ShellSession } from '../sandbox.js';
import { returnToCwd, ShellRequest, shellInit } from '../shell-protocol.js';
import type { BoxProcess } from './box-process.js';

export interface SessionOptions {
  readonly start: () => Promise<BoxProcess>;
  /** Shell lines run once at start (rlimits and the like). */
  readonly prelude: string;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
}

interface Running {
  readonly request: ShellRequest;
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
    box.stdin.write(shellInit(this.#options.prelude));
    const cd = returnToCwd(this.#cwd, this.#options.cwd);
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
    return new Promise<ExecResult>((resolve) => {
      let timedOut = false;
      const timer = setTimeout(() => {
        timedOut = true;
        box.kill();
      }, timeoutMs);
      const request = new ShellRequest(maxOutputBytes);
      const running: Running = {
        request,
        finish: (exitCode, cwd, restarted) => {
          clearTimeout(timer);
          this.#running = undefined;
          if (cwd !== undefined) this.#cwd = cwd;
          if (restarted) request.flush();
          const { text, truncated } = request.output.result();
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
      box.stdin.write(request.request(command));
    });
  }

  #onData(chunk: Buffer): void {
    const running = this.#running;
    if (!running) return;
    const end = running.request.push(chunk);
    if (end) running.finish(end.exitCode, end.cwd, false);
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
