import { type ChildProcess, spawn } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { trackForExit } from '../../../core/host/exit-cleanup.js';
import { findProgram } from '../../server/server-binaries.js';
import { SqlEngineError } from '../sql-engine-error.js';
import type { SqliteChildReply, SqliteChildRequest } from './sqlite-child-protocol.js';
import { SqliteMemoryWatch } from './sqlite-memory-watch.js';

/**
 * The process ended while requests were waiting (killed, crashed, out of memory). The process runs
 * requests in order, so the first one waiting is the one it was running; the others (`collateral`)
 * never started and may be sent again to a new process.
 */
export class SqliteProcessExit extends Error {
  constructor(
    message: string,
    readonly collateral = false,
  ) {
    super(message);
  }
}

/** Limits of a session process. */
export interface SqliteProcessLimits {
  /** Most resident memory of the process (and its JS heap limit), in bytes. */
  readonly memoryBytes: number;
}

const STDERR_TAIL = 4096;

let modulePath: string | undefined;

/** Where better-sqlite3 is, resolved from this package (the child requires it by path). */
function betterSqlitePath(): string {
  if (modulePath === undefined) {
    try {
      modulePath = createRequire(import.meta.url).resolve('better-sqlite3');
    } catch (cause) {
      throw new SqlEngineError('SQL_ENGINE_UNAVAILABLE', 'better-sqlite3 is not installed: run npm install', {
        cause,
      });
    }
  }
  return modulePath;
}

let childSource: string | undefined;

/**
 * The program of a session process (`sqlite-child.cjs` beside this module, in src/ and dist/ alike;
 * its header says what it does), read once: it is run as `node -e <source>`.
 */
function sqliteChildSource(): string {
  if (childSource === undefined) {
    const url = new URL('./sqlite-child.cjs', import.meta.url);
    try {
      childSource = readFileSync(url, 'utf8');
    } catch (cause) {
      throw new SqlEngineError(
        'SQL_ENGINE_UNAVAILABLE',
        `the SQLite session program ${fileURLToPath(url)} is missing: reinstall intercode (in a clone: npm run build)`,
        { cause },
      );
    }
  }
  return childSource;
}

/** A request sent to a session process: its reply, and when the process starts on it. */
export interface SentRequest {
  readonly reply: Promise<SqliteChildReply>;
  /** Settles when every request sent before this one has its reply (or the process ended). */
  readonly turn: Promise<void>;
}

const ignore = (): void => {};

/**
 * `setpriv --pdeathsig KILL --` when this machine has a `setpriv` that takes it (util-linux), so the
 * kernel ends a session process with its parent; otherwise (none, or one that refused the option)
 * the process watches for that itself, with a thread (see `sqlite-child.cjs`).
 */
let deathSignalPrefix: string[] | undefined | null = null;

function parentDeathPrefix(): string[] | undefined {
  if (deathSignalPrefix === null) {
    const setpriv = findProgram(['setpriv']);
    deathSignalPrefix = setpriv ? [setpriv, '--pdeathsig', 'KILL', '--'] : undefined;
  }
  return deathSignalPrefix;
}

/**
 * One SQLite session process: requests go out in order, replies come back in order. A request may
 * wait for the next one to leave with it (the gold and the agent's query of an episode: one write and
 * one wake-up of the process instead of two). `kill()` ends it at once (SIGKILL), whatever it is
 * doing; it is also killed when this process exits.
 */
export class SqliteProcess {
  private readonly pending = new Map<
    number,
    { resolve: (reply: SqliteChildReply) => void; reject: (error: Error) => void }
  >();
  private nextId = 1;
  /** Requests not sent yet (one that waits for the next, see `send`). */
  private outbox: (SqliteChildRequest & { id: number })[] = [];
  /** Settles when the last request sent has its reply. */
  private tail: Promise<void> = Promise.resolve();
  private stderr = '';
  private exited = false;
  private readonly untrack: () => void;
  /** Settles when the process has ended and its stderr is read to the end. */
  readonly finished: Promise<void>;

  /** The memory limit enforced from here (a process without its own watchdog thread). */
  private readonly memoryWatch: SqliteMemoryWatch | undefined;
  /** Why this side killed the process (its memory limit). */
  private killedFor: string | undefined;

  private constructor(
    private readonly child: ChildProcess,
    memoryBytes: number | undefined,
  ) {
    this.untrack = trackForExit({ closeSync: () => this.kill() });
    if (memoryBytes !== undefined && child.pid !== undefined) {
      this.memoryWatch = new SqliteMemoryWatch(
        child.pid,
        memoryBytes,
        () => this.pending.size > 0,
        (reason) => {
          this.killedFor ??= reason;
          this.kill();
        },
      );
    }
    this.finished = new Promise((resolve) => child.once('close', () => resolve()));
    child.stderr?.setEncoding('utf8');
    child.stderr?.on('data', (chunk: string) => {
      this.stderr = (this.stderr + chunk).slice(-STDERR_TAIL);
    });
    child.on('message', (reply: SqliteChildReply & { id: number }) => {
      const waiting = this.pending.get(reply.id);
      if (!waiting) return;
      this.pending.delete(reply.id);
      waiting.resolve(reply);
    });
    child.on('exit', (code, signal) => this.onExit(code, signal));
    child.on('error', (error) => {
      child.kill('SIGKILL');
      this.onExit(null, null, error);
    });
  }

  /** Starts a process and waits until it is ready. */
  static async start(limits: SqliteProcessLimits): Promise<SqliteProcess> {
    const prefix = parentDeathPrefix();
    const started = SqliteProcess.spawn(limits, prefix);
    try {
      await started.waitFor(0);
    } catch (cause) {
      if (prefix !== undefined) await started.finished;
      if (prefix !== undefined && started.stderr.includes('pdeathsig')) {
        // An older setpriv without the option: the process watches its parent itself from now on.
        deathSignalPrefix = undefined;
        return SqliteProcess.start(limits);
      }
      throw new SqlEngineError(
        'SQL_ENGINE_UNAVAILABLE',
        `the SQLite session process did not start: ${started.stderrTail() || String(cause)}`,
        { cause },
      );
    }
    return started;
  }

  private static spawn(limits: SqliteProcessLimits, prefix: string[] | undefined): SqliteProcess {
    const watchdog = prefix === undefined;
    const config = JSON.stringify({
      modulePath: betterSqlitePath(),
      memoryBytes: limits.memoryBytes,
      parent: process.pid,
      watchdog,
    });
    const heapMb = Math.max(64, Math.ceil(limits.memoryBytes / 2 ** 20));
    const command = [
      ...(prefix ?? []),
      process.execPath,
      `--max-old-space-size=${heapMb}`,
      '-e',
      sqliteChildSource(),
      config,
    ];
    const child = spawn(command[0]!, command.slice(1), {
      stdio: ['ignore', 'ignore', 'pipe', 'ipc'],
      serialization: 'advanced',
      env: {},
    });
    return new SqliteProcess(child, watchdog ? undefined : limits.memoryBytes);
  }

  get alive(): boolean {
    return !this.exited;
  }

  /** Sends a request; rejects with {@link SqliteProcessExit} when the process ends first. */
  request(request: SqliteChildRequest): Promise<SqliteChildReply> {
    return this.send(request).reply;
  }

  /**
   * Sends a request (see {@link SentRequest}); its reply rejects as `request`'s does. A request that
   * `waits` stays until the next request is made (both then leave as one message) or the end of
   * this turn of the event loop; any other leaves at once, with whatever waited.
   */
  send(request: SqliteChildRequest, waits = false): SentRequest {
    const turn = this.tail;
    if (this.exited) {
      const reply = Promise.reject(new SqliteProcessExit('the SQLite session process has ended', true));
      return { reply, turn };
    }
    const id = this.nextId++;
    const reply = this.waitFor(id);
    this.tail = reply.then(ignore, ignore);
    this.outbox.push({ ...request, id });
    this.memoryWatch?.wake();
    if (!waits) this.flush();
    else if (this.outbox.length === 1) setImmediate(() => this.flush());
    return { reply, turn };
  }

  /** Sends the requests of this turn: one alone as itself, several as an array (the child runs them in order). */
  private flush(): void {
    const batch = this.outbox;
    this.outbox = [];
    if (batch.length === 0 || this.exited) return;
    try {
      this.child.send((batch.length === 1 ? batch[0] : undefined) ?? batch);
    } catch (error) {
      this.child.kill('SIGKILL');
      this.onExit(null, null, error instanceof Error ? error : new Error(String(error)));
    }
  }

  /** Why the process died, from what it wrote to stderr: the watchdog's or V8's report, or nothing. */
  crashReason(): string | undefined {
    if (this.killedFor !== undefined) return this.killedFor;
    const lines = this.stderr.split('\n');
    const watchdog = lines.find((line) => line.startsWith('intercode-sqlite: '));
    if (watchdog) return watchdog.slice('intercode-sqlite: '.length);
    const fatal = lines.find((line) => line.includes('FATAL ERROR:'));
    return fatal ? fatal.slice(fatal.indexOf('FATAL ERROR:') + 'FATAL ERROR:'.length).trim() : undefined;
  }

  /** The last lines the process wrote to stderr. */
  stderrTail(): string {
    return this.stderr.trim().split('\n').slice(-3).join(' | ');
  }

  /** Ends the process now (SIGKILL). */
  kill(): void {
    if (!this.exited) this.child.kill('SIGKILL');
  }

  /** Sends a request whose reply nobody waits for (the process drops what it holds). */
  post(request: SqliteChildRequest): void {
    if (this.exited) return;
    this.request(request).catch(() => undefined);
  }

  private waitFor(id: number): Promise<SqliteChildReply> {
    return new Promise((resolve, reject) => this.pending.set(id, { resolve, reject }));
  }

  private onExit(code: number | null, signal: NodeJS.Signals | null, error?: Error): void {
    if (this.exited) return;
    this.exited = true;
    this.memoryWatch?.stop();
    this.untrack();
    const how = error ? error.message : signal ? `signal ${signal}` : `exit code ${code}`;
    const message = `the SQLite session process ended (${how})`;
    let first = true;
    for (const waiting of this.pending.values()) {
      waiting.reject(new SqliteProcessExit(message, !first));
      first = false;
    }
    this.pending.clear();
  }
}
