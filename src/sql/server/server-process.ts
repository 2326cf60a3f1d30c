import { type ChildProcess, spawn } from 'node:child_process';
import { setTimeout as sleep } from 'node:timers/promises';

const STDERR_TAIL = 8192;

/** How a server process ended. */
export interface ServerExit {
  readonly code: number | null;
  readonly signal: NodeJS.Signals | null;
}

/**
 * One database server process: started in its own process group (so that a terminal's Ctrl-C does
 * not reach it: its owner decides when it stops), output kept as a short tail for error messages.
 */
export class ServerProcess {
  readonly pid: number;
  readonly exited: Promise<ServerExit>;
  #exit: ServerExit | undefined;
  #output = '';
  readonly #listeners = new Set<(exit: ServerExit) => void>();

  private constructor(child: ChildProcess) {
    if (child.pid === undefined) throw new Error('the server process did not start');
    this.pid = child.pid;
    const keep = (chunk: Buffer) => {
      this.#output = (this.#output + chunk.toString('utf8')).slice(-STDERR_TAIL);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    this.exited = new Promise((resolve) => {
      child.on('exit', (code, signal) => {
        this.#exit = { code, signal };
        for (const listener of this.#listeners) listener(this.#exit);
        resolve(this.#exit);
      });
    });
  }

  /** Spawns `command` (the full exec chain, e.g. `setpriv … -- postgres …`). */
  static spawn(command: readonly string[], env: NodeJS.ProcessEnv): Promise<ServerProcess> {
    const [program, ...args] = command;
    if (!program) throw new Error('empty server command');
    const child = spawn(program, args, { stdio: ['ignore', 'pipe', 'pipe'], env, detached: true });
    return new Promise((resolve, reject) => {
      child.once('spawn', () => resolve(new ServerProcess(child)));
      child.once('error', reject);
    });
  }

  get alive(): boolean {
    return this.#exit === undefined;
  }

  get exit(): ServerExit | undefined {
    return this.#exit;
  }

  /** Calls `listener` when the process ends (right away when it already has). */
  onExit(listener: (exit: ServerExit) => void): () => void {
    if (this.#exit) {
      listener(this.#exit);
      return () => {};
    }
    this.#listeners.add(listener);
    return () => this.#listeners.delete(listener);
  }

  /** The last lines the server wrote (its log goes to stderr, or to a file the caller reads). */
  outputTail(lines = 5): string {
    return this.#output.trim().split('\n').slice(-lines).join(' | ');
  }

  /** Sends a signal to the server's whole process group (its helper processes too). */
  signal(signal: NodeJS.Signals): void {
    if (!this.alive) return;
    for (const target of [-this.pid, this.pid]) {
      try {
        process.kill(target, signal);
        return;
      } catch {
        // Not a group leader: try the process itself.
      }
    }
  }

  /** `graceful` first, SIGKILL when the process has not ended after `graceMs`; resolves once it has ended. */
  async stop(graceful: NodeJS.Signals, graceMs: number): Promise<ServerExit> {
    if (!this.alive) return this.#exit as ServerExit;
    this.signal(graceful);
    // The grace timer is cancelled once the process ends: a pending timer would hold this
    // process's event loop (and the command's exit) for the rest of the grace period.
    const grace = new AbortController();
    const ended = await Promise.race([
      this.exited,
      sleep(graceMs, undefined, { signal: grace.signal }).catch(() => undefined),
    ]);
    grace.abort();
    if (ended) return ended;
    this.signal('SIGKILL');
    return this.exited;
  }

  /** SIGKILL now, without waiting (exit handlers). */
  killSync(): void {
    this.signal('SIGKILL');
  }
}
