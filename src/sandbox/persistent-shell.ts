import { SandboxError } from '../core/errors.js';
import type { ExecResult, SandboxResetOptions, ShellSession } from './sandbox.js';
import {
  MAX_STATE_BYTES,
  RENEW_COMMAND,
  returnToCwd,
  STATE_EXPORT_COMMAND,
  stateImportCommand,
} from './shell-protocol.js';
import { ShellRequest } from './shell-request.js';

/** A running `bash` of some backend, as a persistent shell drives it. */
export interface ShellProcess {
  /** Writes to the controller's input (the descriptor its requests arrive on). */
  write(data: Buffer): void;
  /** Kills the shell's whole process tree (a command past its time limit). */
  kill(): void;
  /** Resolves with the exit code once the shell is gone. */
  readonly exited: Promise<number | null>;
  /** Ends the shell before a restart of its sandbox (the backend decides whether to wait). */
  release(): Promise<void>;
  /** Ends the shell for good and waits, within reason, until it is gone. */
  stop(): Promise<void>;
  /** Ends the shell without waiting (process exit handlers). */
  drop(): void;
  /** What the shell wrote on its standard error, to explain a failed start. */
  stderrText(): Promise<string>;
  /** Called once the shell has answered its first request, before any command runs. */
  started?(): Promise<void>;
  /**
   * A backend that can renew its sandbox around this shell: puts a pristine file system under it
   * once its controller has ended every other process ({@link RENEW_COMMAND}); false when the
   * sandbox holds something a new one would not (then it is started anew). `options`: the reset's
   * (a trusted one may keep the sandbox as it is when nothing of it changed).
   */
  renew?(options: SandboxResetOptions): Promise<boolean>;
  /**
   * A renewal that did not happen for a reason of the shell's own (its controller could not end
   * the other processes, or the renewed shell did not answer): the backend keeps `why`, as it
   * keeps its own refusals. The reset then starts the shell anew.
   */
  renewMissed?(why: string): void;
}

export interface PersistentShellOptions {
  /**
   * Starts the shell's controller (see `shell-protocol.ts`: `controllerArgs`, with the backend's
   * prelude), non-dumpable, whose standard output (the reply stream) goes to `onData`.
   */
  readonly launch: (onData: (chunk: Buffer) => void) => Promise<ShellProcess>;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** How long a new shell may take to answer, default `timeoutMs`. */
  readonly startTimeoutMs?: number;
  /**
   * The shell starts with its first command, not when opened, and after a restart again only once
   * used (a sandbox's `lazyShell`).
   */
  readonly startOnUse?: boolean;
}

/** How long a killed shell may take to go before its command's result is returned anyway. */
const KILL_GRACE_MS = 3_000;

/** How long a controller may take to end the other processes of its sandbox for a renewal. */
const RENEW_TIMEOUT_MS = 5_000;

interface Running {
  readonly request: ShellRequest;
  finish(exitCode: number | null, cwd: string | undefined, restarted: boolean): void;
}

/**
 * A persistent bash in a sandbox, the same on every backend (see `shell-protocol.ts`). One command
 * runs at a time, in a child of the controller; `exit` ends only that command. A timeout kills the
 * shell's whole process tree, keeps the partial output, and a new shell starts in the same working
 * directory (variables are lost, files are kept).
 */
export class PersistentShell implements ShellSession {
  readonly #options: PersistentShellOptions;
  #process: ShellProcess | undefined;
  #running: Running | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #cwd: string;
  #closed = false;

  private constructor(options: PersistentShellOptions) {
    this.#options = options;
    this.#cwd = options.cwd;
  }

  static async open(options: PersistentShellOptions): Promise<PersistentShell> {
    const shell = new PersistentShell(options);
    if (!options.startOnUse) await shell.#start();
    return shell;
  }

  get cwd(): string {
    return this.#cwd;
  }

  async #start(): Promise<void> {
    const process = await this.#options.launch((chunk) => this.#onData(chunk));
    this.#process = process;
    process.exited.then((code) => {
      if (this.#process !== process) return;
      this.#process = undefined;
      this.#running?.finish(code, undefined, true);
    });
    const startTimeoutMs = this.#options.startTimeoutMs ?? this.#options.timeoutMs;
    const ready = await this.#send(returnToCwd(this.#cwd, this.#options.cwd), startTimeoutMs, 4096);
    if (ready.exitCode === null || ready.sessionRestarted) {
      process.drop();
      if (this.#process === process) this.#process = undefined;
      const why = ready.timedOut ? `no answer within ${startTimeoutMs} ms` : `exit ${ready.exitCode}`;
      const stderr = await process.stderrText();
      throw new SandboxError(
        'SANDBOX_START_FAILED',
        `the sandbox shell did not start (${why}): ${(stderr || ready.output).trim().split('\n').pop() || 'no output'}`,
      );
    }
    await process.started?.();
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
        await this.#start().catch(() => {});
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

  /**
   * The session's state (directory and stack, variables, functions, aliases, options, umask, traps,
   * positional parameters) as the controller keeps it, for {@link importState} in another shell:
   * read by the controller itself, so nothing of the session changes. Empty before the first
   * command (a new shell has only its initial state). Throws `SANDBOX_IO` for a state past
   * `MAX_STATE_BYTES`, or one the controller could not read.
   */
  async exportState(): Promise<string[]> {
    const result = await this.run(STATE_EXPORT_COMMAND, {
      maxOutputBytes: 4 * MAX_STATE_BYTES + 4096,
      timeoutMs: Math.max(this.#options.timeoutMs, 10_000),
    });
    if (result.exitCode !== 0 || result.truncated || result.sessionRestarted) {
      const why = result.exitCode === 1 ? `larger than ${MAX_STATE_BYTES} bytes` : 'unreadable';
      throw new SandboxError('SANDBOX_IO', `cannot copy the shell's state: ${why}`);
    }
    return result.output.split('\n').filter((line) => line !== '');
  }

  /** Puts a state from {@link exportState} in place: the next command starts from it. */
  async importState(words: readonly string[]): Promise<void> {
    if (words.length === 0) return;
    const result = await this.run(stateImportCommand(words), {
      timeoutMs: Math.max(this.#options.timeoutMs, 10_000),
    });
    if (result.exitCode !== 0 || result.sessionRestarted) {
      throw new SandboxError(
        'SANDBOX_IO',
        `cannot restore the shell's state: ${result.output.trim().split('\n').pop() || `exit ${result.exitCode}`}`,
      );
    }
  }

  #onData(chunk: Buffer): void {
    const running = this.#running;
    if (!running) return;
    const end = running.request.push(chunk);
    if (end) running.finish(end.exitCode, end.cwd, false);
  }

  /**
   * Ends the shell, waits for the caller's work (the sandbox's reset), then starts a fresh shell in
   * the initial working directory. The session object stays valid. `options`: the reset's, for a
   * renewal in place.
   */
  restart(
    between: () => Promise<void>,
    endOthers?: () => Promise<unknown>,
    options: SandboxResetOptions = {},
  ): Promise<void> {
    const task = this.#queue.then(async () => {
      const process = this.#process;
      if (process?.renew && endOthers && (await this.#renewInPlace(process, endOthers, options))) return;
      this.#process = undefined;
      await process?.release();
      await between();
      this.#cwd = this.#options.cwd;
      if (!this.#options.startOnUse) await this.#start();
    });
    this.#queue = task.catch(() => {});
    return task;
  }

  /**
   * The restart of {@link restart} without a new shell process, where the backend can: the
   * controller ends every other process and waits, `endOthers` ends the sandbox's other shells, the
   * backend puts a fresh file system in place (`renew`), and the controller starts itself again in
   * the initial directory. False when any step did not happen; the caller then restarts as before.
   */
  async #renewInPlace(
    process: ShellProcess,
    endOthers: () => Promise<unknown>,
    options: SandboxResetOptions,
  ): Promise<boolean> {
    const ended = await this.#send(RENEW_COMMAND, RENEW_TIMEOUT_MS, 4096);
    if (ended.exitCode !== 0 || ended.sessionRestarted || this.#process !== process) {
      process.renewMissed?.(
        ended.timedOut
          ? `the shell did not end the sandbox's other processes within ${RENEW_TIMEOUT_MS / 1000} s`
          : ended.exitCode === 1 && !ended.sessionRestarted
            ? "processes of the sandbox outlived the shell's rounds of SIGKILL"
            : `the shell's end of the other processes failed (exit code ${ended.exitCode})`,
      );
      return false;
    }
    await endOthers();
    if (!(await process.renew!(options).catch(() => false))) return false;
    process.write(Buffer.from('go\n'));
    this.#cwd = this.#options.cwd;
    const ready = await this.#send('', this.#options.startTimeoutMs ?? this.#options.timeoutMs, 4096);
    if (ready.exitCode === 0 && !ready.sessionRestarted && this.#process === process) return true;
    process.renewMissed?.('the renewed shell did not start');
    return false;
  }

  async close(): Promise<void> {
    this.#closed = true;
    const process = this.#process;
    this.#process = undefined;
    await process?.stop();
  }

  /** Synchronous end, for process exit handlers. */
  killSync(): void {
    this.#closed = true;
    this.#process?.drop();
  }
}
