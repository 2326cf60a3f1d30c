import { SandboxError } from '../../core/errors.js';
import type { ExecResult, ShellSession } from '../sandbox.js';
import { returnToCwd, ShellRequest, shellInit } from '../shell-protocol.js';
import type { SupervisedExec } from './supervised-exec.js';

/** How long a killed shell may take to go before its command's result is returned anyway. */
const KILL_GRACE_MS = 3000;

export interface DockerSessionOptions {
  /** Starts `bash` under the supervisor; output goes to `onOutput`. */
  readonly start: (onOutput: (chunk: Buffer) => void) => Promise<SupervisedExec>;
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
 * A persistent bash in a Docker sandbox over an attached exec. One command runs at a time; a
 * timeout kills the shell's whole process tree, keeps the partial output, and a new shell starts in
 * the same working directory (variables are lost, files are kept).
 */
export class DockerShellSession implements ShellSession {
  readonly #options: DockerSessionOptions;
  #process: SupervisedExec | undefined;
  #running: Running | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #cwd: string;
  #closed = false;

  private constructor(options: DockerSessionOptions) {
    this.#options = options;
    this.#cwd = options.cwd;
  }

  static async open(options: DockerSessionOptions): Promise<DockerShellSession> {
    const session = new DockerShellSession(options);
    await session.#start();
    return session;
  }

  get cwd(): string {
    return this.#cwd;
  }

  async #start(): Promise<void> {
    const process = await this.#options.start((chunk) => this.#onData(chunk));
    this.#process = process;
    process.exited.then((code) => {
      if (this.#process !== process) return;
      this.#process = undefined;
      this.#running?.finish(code, undefined, true);
    });
    process.go();
    process.write(Buffer.from(shellInit(this.#options.prelude)));
    const cd = returnToCwd(this.#cwd, this.#options.cwd);
    const ready = await this.#send(cd, Math.max(this.#options.timeoutMs, 30_000), 4096);
    if (ready.exitCode === null || ready.sessionRestarted) {
      process.destroy();
      const why = ready.timedOut ? 'no answer in time' : `exit ${ready.exitCode}`;
      throw new SandboxError(
        'SANDBOX_START_FAILED',
        `the sandbox shell did not start (${why}): ${(process.stderr || ready.output).trim().split('\n').pop() || 'no output'}`,
      );
    }
  }

  run(command: string, options: { timeoutMs?: number; maxOutputBytes?: number } = {}): Promise<ExecResult> {
    const task = this.#queue.then(async () => {
      if (this.#closed) throw new SandboxError('SANDBOX_CLOSED', 'the session is closed');
      if (!this.#process) await this.#start();
      const result = await this.#send(
        command,
        options.timeoutMs ?? this.#options.timeoutMs,
        options.maxOutputBytes ?? this.#options.maxOutputBytes,
      );
      if (result.sessionRestarted && !this.#closed) {
        // A shell that cannot start right now (the sandbox is at its process limit) starts with
        // the next command instead; this command's result stands.
        await this.#start().catch(() => {
          this.#process = undefined;
        });
      }
      return result;
    });
    this.#queue = task.catch(() => {});
    return task;
  }

  #send(command: string, timeoutMs: number, maxOutputBytes: number): Promise<ExecResult> {
    const process = this.#process!;
    const started = performance.now();
    return new Promise<ExecResult>((resolve) => {
      let timedOut = false;
      let grace: NodeJS.Timeout | undefined;
      const timer = setTimeout(() => {
        timedOut = true;
        process.kill();
        // Normally the tree is gone within milliseconds; never wait for it forever.
        grace = setTimeout(() => {
          if (this.#process === process) this.#process = undefined;
          running.finish(null, undefined, true);
        }, KILL_GRACE_MS);
      }, timeoutMs);
      const request = new ShellRequest(maxOutputBytes);
      let done = false;
      const running: Running = {
        request,
        finish: (exitCode, cwd, restarted) => {
          if (done) return;
          done = true;
          clearTimeout(timer);
          if (grace) clearTimeout(grace);
          if (this.#running === running) this.#running = undefined;
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
      process.write(request.request(command));
    });
  }

  #onData(chunk: Buffer): void {
    const running = this.#running;
    if (!running) return;
    const end = running.request.push(chunk);
    if (end) running.finish(end.exitCode, end.cwd, false);
  }

  /**
   * Drops the shell, waits for the caller's work (a new container), then starts a fresh shell in
   * the initial working directory. The session object stays valid.
   */
  restart(between: () => Promise<void>): Promise<void> {
    const task = this.#queue.then(async () => {
      const process = this.#process;
      this.#process = undefined;
      process?.destroy();
      await between();
      this.#cwd = this.#options.cwd;
      await this.#start();
    });
    this.#queue = task.catch(() => {});
    return task;
  }

  /** Forgets the shell without waiting (its container is being removed). */
  detach(): void {
    const process = this.#process;
    this.#process = undefined;
    process?.destroy();
  }

  async close(): Promise<void> {
    this.#closed = true;
    const process = this.#process;
    this.#process = undefined;
    if (process) {
      process.kill();
      await Promise.race([process.exited, new Promise((resolve) => setTimeout(resolve, KILL_GRACE_MS))]);
      process.destroy();
    }
  }

  /** Synchronous: drops the connection; the supervisor kills the shell's tree. */
  killSync(): void {
    this.#closed = true;
    this.#process?.destroy();
  }
}
