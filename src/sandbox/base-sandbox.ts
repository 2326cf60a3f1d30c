import { SandboxError } from '../core/errors.js';
import type { OutputBuffer } from './output-buffer.js';
import { PersistentShell, type PersistentShellOptions } from './persistent-shell.js';
import type {
  ExecOptions,
  ExecResult,
  FileChange,
  Quiesced,
  Sandbox,
  SandboxBranch,
  SandboxLimits,
  SandboxProcess,
  SandboxResetOptions,
  SandboxStats,
  ShellSession,
} from './sandbox.js';

/** The environment every sandbox process starts with, under the spec's own variables. */
export const SANDBOX_BASE_ENV: Readonly<Record<string, string>> = {
  PATH: '/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin',
  HOME: '/root',
  USER: 'root',
  LOGNAME: 'root',
  HOSTNAME: 'sandbox',
  LANG: 'C.UTF-8',
  TERM: 'dumb',
  SHELL: '/bin/bash',
};

/** Files larger than this are not read back through `readFile`. */
export const MAX_READ_BYTES = 256 * 1024 * 1024;

/** What every sandbox gets from its provider, whatever the backend. */
export interface SandboxSettings {
  readonly limits: SandboxLimits;
  readonly env: Readonly<Record<string, string>>;
  readonly cwd: string;
  readonly timeoutMs: number;
  readonly maxOutputBytes: number;
  /** The main shell starts with its first command (`SandboxSpec.lazyShell`). */
  readonly lazyShell?: boolean;
  /** Called once the sandbox is closed: the provider forgets it. */
  readonly onClose: () => void;
}

/** A command run on its own process tree (exec, writeFile), as the backend reports it. */
export interface CommandRun {
  /** Standard output, with standard error when merged, within the cap. */
  readonly output: OutputBuffer;
  readonly exitCode: number;
  readonly timedOut: boolean;
  readonly durationMs: number;
  /** What the command said about a failure (its standard error, or its last line of output). */
  complaint(): string;
}

export interface CommandRunOptions extends ExecOptions {
  readonly maxBytes: number;
  /** Standard error goes into `output`, in order (otherwise only `complaint()` sees it). */
  readonly mergeStderr: boolean;
}

/** How a backend starts the controller of a shell of its sandbox (see `shell-protocol.ts`). */
export type ShellStart = Pick<PersistentShellOptions, 'launch' | 'startTimeoutMs'>;

/** Waits for a command to end, killing it (its whole tree) once `timeoutMs` has passed. */
export async function endWithin(
  command: { kill(): void; readonly exited: Promise<number> },
  timeoutMs: number,
): Promise<{ exitCode: number; timedOut: boolean }> {
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    command.kill();
  }, timeoutMs);
  const exitCode = await command.exited;
  clearTimeout(timer);
  return { exitCode, timedOut };
}

const WRITE_FILE_SCRIPT = 'mkdir -p -- "$(dirname -- "$1")" && cat > "$1"';

/**
 * What the bwrap and docker sandboxes share: the main persistent shell and the extra sessions,
 * the closed state every call checks, `exec` and `writeFile` over a backend's command runner, and
 * the order of `reset` and `close`. A backend says how it starts processes and what its file system does.
 */
export abstract class BaseSandbox implements Sandbox {
  readonly id: string;
  abstract readonly provider: string;
  readonly #settings: SandboxSettings;
  #main: PersistentShell | undefined;
  readonly #sessions = new Set<PersistentShell>();
  #closed = false;
  /** close() ran (closeSync only kills: close() still releases what the sandbox holds). */
  #released = false;

  protected constructor(id: string, settings: SandboxSettings) {
    this.id = id;
    this.#settings = settings;
  }

  /** How this backend starts a shell. */
  protected abstract shellStart(): ShellStart;
  /** The bash script `exec` runs: `$1` is the command. */
  protected abstract execScript(): string;
  /** Runs `command` (argv) in its own process tree and collects its output. */
  protected abstract runCommand(command: readonly string[], options: CommandRunOptions): Promise<CommandRun>;
  /**
   * Inside `reset()`, between the end of the main shell and its new start: ends every other process
   * (`sessions` are the other shells, already forgotten) and brings the file system back to pristine.
   */
  protected abstract renew(
    sessions: readonly PersistentShell[],
    options?: SandboxResetOptions,
  ): Promise<void>;
  /** Inside `close()`: ends every process (`sessions`: all shells, already forgotten) and frees everything. */
  protected abstract release(sessions: readonly PersistentShell[]): Promise<void>;
  /** Inside `closeSync()`, after the shells are killed: ends every other process at once. */
  protected abstract dropSync(): void;

  abstract spawn(
    command: readonly string[],
    options?: Pick<ExecOptions, 'cwd' | 'env'>,
  ): Promise<SandboxProcess>;
  abstract readFile(path: string): Promise<Uint8Array>;
  abstract quiesce(): Promise<Quiesced>;
  abstract diff(): Promise<FileChange[]>;
  abstract digest(paths: readonly string[]): Promise<Record<string, string | null>>;
  abstract snapshot(directory: string): Promise<void>;
  abstract stats(): Promise<SandboxStats>;

  /**
   * `Sandbox.fork` for a backend that has `branch`: `count` copies opened from one branch of this
   * sandbox, which is released once they are open. A failed copy closes the others.
   */
  protected async forkFromBranch(count: number, branch: () => Promise<SandboxBranch>): Promise<Sandbox[]> {
    if (!Number.isInteger(count) || count < 1) {
      throw new SandboxError(
        'SANDBOX_INVALID_SPEC',
        `fork count must be a whole number from 1, not ${count}`,
      );
    }
    const kept = await branch();
    try {
      const made = await Promise.allSettled(Array.from({ length: count }, () => kept.open()));
      const copies = made.flatMap((copy) => (copy.status === 'fulfilled' ? [copy.value] : []));
      const failed = made.find((copy) => copy.status === 'rejected');
      if (failed) {
        await Promise.all(copies.map((copy) => copy.close()));
        throw failed.reason;
      }
      return copies;
    } finally {
      await kept.release();
    }
  }

  /**
   * `Sandbox.branch` for a backend that can keep a copy of its writable layer (`keep`, called while
   * every process of this sandbox is stopped; it resolves with what `open` and `drop` are given) and
   * open a sandbox of the same spec on it (`open`): each opened copy's main shell then takes the
   * main shell's state as it was when the branch was made.
   */
  protected async branchWith<K, T extends BaseSandbox>(
    keep: () => Promise<K>,
    open: (kept: K) => Promise<T>,
    drop: (kept: K) => Promise<void>,
  ): Promise<SandboxBranch> {
    const state = await this.#main!.exportState();
    const stopped = await this.quiesce();
    let kept: K;
    try {
      kept = await keep();
    } finally {
      await stopped.resume();
    }
    let released: Promise<void> | undefined;
    return {
      cwd: this.#main!.cwd,
      open: async () => {
        if (released)
          throw new SandboxError('SANDBOX_CLOSED', `the branch of sandbox ${this.id} was released`);
        const copy = await open(kept);
        try {
          await copy.#main!.importState(state);
        } catch (error) {
          await copy.close();
          throw error;
        }
        return copy;
      },
      release: () => {
        released ??= drop(kept);
        return released;
      },
    };
  }

  /**
   * Starts the main shell (only makes it, for `lazyShell`: it starts with its first command); a
   * backend's `create` calls it once the sandbox runs.
   */
  protected async startMainSession(): Promise<void> {
    this.#main = await this.#openSession(this.lazyShell);
  }

  /** The main shell starts with its first command (`SandboxSpec.lazyShell`). */
  protected get lazyShell(): boolean {
    return this.#settings.lazyShell === true;
  }

  protected get closed(): boolean {
    return this.#closed;
  }

  protected closedError(): SandboxError {
    return new SandboxError('SANDBOX_CLOSED', `sandbox ${this.id} is closed`);
  }

  async #openSession(onUse = false): Promise<PersistentShell> {
    const { cwd, timeoutMs, maxOutputBytes } = this.#settings;
    const session = await PersistentShell.open({
      ...this.shellStart(),
      cwd,
      timeoutMs,
      maxOutputBytes,
      ...(onUse ? { startOnUse: true } : {}),
    });
    this.#sessions.add(session);
    return session;
  }

  /** The shells other than `keep`, forgotten by the sandbox: the caller ends them. */
  #takeSessions(keep?: PersistentShell): PersistentShell[] {
    const sessions = [...this.#sessions].filter((session) => session !== keep);
    for (const session of sessions) this.#sessions.delete(session);
    return sessions;
  }

  session(): ShellSession {
    if (!this.#main || this.#closed) throw this.closedError();
    return this.#main;
  }

  openSession(): Promise<ShellSession> {
    if (this.#closed) return Promise.reject(this.closedError());
    return this.#openSession();
  }

  async exec(command: string, options: ExecOptions = {}): Promise<ExecResult> {
    const result = await this.runCommand(
      ['bash', '--norc', '--noprofile', '-c', this.execScript(), 'intercode-exec', command],
      { ...options, mergeStderr: true, maxBytes: options.maxOutputBytes ?? this.#settings.maxOutputBytes },
    );
    const { text, truncated } = result.output.result();
    return {
      output: text,
      exitCode: result.timedOut ? null : result.exitCode,
      timedOut: result.timedOut,
      durationMs: result.durationMs,
      ...(truncated ? { truncated } : {}),
    };
  }

  async writeFile(path: string, data: string | Uint8Array): Promise<void> {
    // Written from inside, like any process there: read-only paths, the disk quota and symbolic
    // links behave exactly as they do for the sandbox's own commands.
    const result = await this.runCommand(
      ['bash', '--norc', '--noprofile', '-c', WRITE_FILE_SCRIPT, 'intercode-write', path],
      { stdin: data, mergeStderr: false, maxBytes: 4096 },
    );
    if (result.exitCode !== 0 || result.timedOut) {
      throw new SandboxError(
        'SANDBOX_IO',
        `cannot write ${path}: ${result.complaint() || `exit ${result.exitCode}`}`,
      );
    }
  }

  /** Back to the pristine image: the main shell restarts in the initial directory, the rest ends. */
  async reset(options: SandboxResetOptions = {}): Promise<void> {
    if (this.#closed) throw this.closedError();
    const main = this.#main!;
    const others = this.#takeSessions(main);
    await main.restart(
      () => this.renew(others, options),
      () => Promise.all(others.map((session) => session.close())),
      options,
    );
  }

  async close(): Promise<void> {
    if (this.#released) return;
    this.#closed = true;
    this.#released = true;
    await this.release(this.#takeSessions());
    this.#settings.onClose();
  }

  /** Synchronous, for exit handlers: kills every process and drops every connection. */
  closeSync(): void {
    this.#closed = true;
    for (const session of this.#sessions) session.killSync();
    this.dropSync();
  }
}
