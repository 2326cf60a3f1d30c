import { randomBytes } from 'node:crypto';
import { SandboxError } from '../../core/errors.js';
import { programSource } from '../../sandbox/program-source.js';
import type { Sandbox, SandboxProcess } from '../../sandbox/sandbox.js';
import { DRIVER_BOOT, driverInput, keepDriverCode } from './driver-bytecode.js';
import type {
  ForkReply,
  JudgeAnswer,
  JudgeCall,
  RunOptions,
  RunReply,
  RunTarget,
} from './driver-messages.js';

/**
 * The driver's program, one Python program from these files in order: `python-values.py` (plain values
 * for the judge), `python-driver.py` (set-up and the host protocol), `python-worker.py` (runs user
 * code), `python-zygote.py` (workers and the clean slate), `python-branches.py` (the copies of a fork),
 * `python-warm-pool.py` (the spare worker kept ahead of need), `python-kept-worker.py` (the evaluation
 * sandbox's worker kept from one gold or judge run to the next), `python-driver-main.py` (requests, main loop).
 */
const driverParts = [
  'python-values.py',
  'python-driver.py',
  'python-worker.py',
  'python-zygote.py',
  'python-branches.py',
  'python-warm-pool.py',
  'python-kept-worker.py',
  'python-driver-main.py',
].map((file) => programSource(new URL(`./${file}`, import.meta.url)));
let driverSource: string | undefined;
/** The driver's source: its parts, in order (joined once: every start sends it, and compares it with the kept code's). */
export const pythonDriverSource = (): string => {
  driverSource ??= driverParts.map((part) => part()).join('\n');
  return driverSource;
};

/** One agent's side of the interpreter: its runs and a judge's calls in its probe. */
export type AgentChannel = Pick<PythonInterpreter, 'run' | 'call'>;

interface Pending {
  resolve: (value: unknown) => void;
  reject: (error: Error) => void;
  onCall?: ((call: JudgeCall) => Promise<JudgeAnswer>) | undefined;
}

export interface InterpreterOptions {
  /** Address-space limit of each worker, bytes. */
  readonly memoryBytes: number;
  /**
   * Take Python's hash seed from the sandbox's `PYTHONHASHSEED` (deterministic mode). Isolated mode
   * (`-I`) ignores it, so the interpreter then runs with `-s -P` (no user site, no script folder on
   * the path: Python 3.11 or newer) and honours the sandbox's `PYTHON*` variables, which only the
   * project sets.
   */
  readonly hashSeedFromEnv?: boolean;
  /**
   * Keep a warm pool: one spare worker forked and warmed ahead of need, taken by the next reset, gold
   * or judge run (`python-warm-pool.py`). Off: the driver forks a worker when one is needed, and the
   * evaluation driver its next throw-away one between requests, as before the pool.
   */
  readonly warm?: boolean;
  /**
   * Keep the worker of a gold or judge run that ended cleanly for the next one, with new globals
   * (`python-kept-worker.py`): only for a driver where the agent's code never runs (the evaluation
   * sandbox's).
   */
  readonly keep?: boolean;
}

/** What a driver holds idle for its next fresh worker (see {@link PythonInterpreter.pool}). */
export interface DriverPool {
  /** Idle workers: the spare (0 or 1) and, in a driver that keeps one, the kept worker (0 or 1). */
  readonly idle: number;
  /** Their proportional set size, bytes. */
  readonly memoryBytes: number;
  /** The most the driver keeps idle (1, 2 with a kept worker, 0 with the pool off). */
  readonly limit: number;
}

/** Time the driver gets to answer a request beyond the time limits of its codes. */
const SLACK_MS = 15_000;
/** How long an interrupted code may take to stop before its worker is killed. */
const GRACE_S = 1;

/** The driver stopped answering or died: the interpreter must be started again. */
export class InterpreterLost extends Error {
  /** Lost because no answer came within the request's time limit (its codes' limits and slack). */
  readonly pastDeadline: boolean;

  constructor(reason: string, pastDeadline = false) {
    super(reason);
    this.pastDeadline = pastDeadline;
  }
}

/**
 * The host side of the Python driver (see `python-driver.py`): one process in a sandbox,
 * one request at a time, answers matched by their per-process nonce and length.
 */
export class PythonInterpreter {
  readonly #process: SandboxProcess;
  readonly #nonce: string;
  #buffer: Buffer = Buffer.alloc(0);
  #pending: Pending | undefined;
  #queue: Promise<unknown> = Promise.resolve();
  #dead: string | undefined;
  #stderr = '';
  #requests = 0;
  #compiled = false;

  private constructor(process: SandboxProcess) {
    this.#process = process;
    this.#nonce = randomBytes(16).toString('hex');
    process.stdout.on('data', (chunk: Buffer) => this.#onData(chunk));
    process.stderr.on('data', (chunk: Buffer) => {
      this.#stderr = (this.#stderr + chunk.toString()).slice(-2000);
    });
    process.stdin.on('error', () => {});
    process.exited.then((code) => this.#lose(`the interpreter process exited (${code})${this.#why()}`));
  }

  /**
   * Starts the driver in `sandbox`. `newSandbox`: nothing has run in the sandbox yet, so the compiled code
   * the driver offers in its greeting may be kept for the next starts (driver-bytecode.ts).
   */
  static async start(
    sandbox: Sandbox,
    options: InterpreterOptions,
    newSandbox = false,
  ): Promise<PythonInterpreter> {
    const config = JSON.stringify({
      contained: true,
      memory_bytes: options.memoryBytes,
      warm: options.warm === true,
      keep: options.keep === true,
    });
    if (!sandbox.spawn) {
      throw new SandboxError(
        'SANDBOX_UNAVAILABLE',
        `the ${sandbox.provider} sandbox backend cannot run the Python env (no long-running processes)`,
      );
    }
    const process = await sandbox.spawn([
      '/usr/bin/python3',
      '-u',
      ...(options.hashSeedFromEnv ? ['-s', '-P'] : ['-I']),
      '-B',
      '-c',
      DRIVER_BOOT,
      config,
    ]);
    const interpreter = new PythonInterpreter(process);
    const source = pythonDriverSource();
    process.stdin.write(driverInput(source));
    process.stdin.write(`${interpreter.#nonce}\n`);
    try {
      const greeting = await interpreter.#request(undefined, SLACK_MS);
      interpreter.#compiled = typeof (greeting as { code?: unknown } | undefined)?.code === 'string';
      keepDriverCode(source, greeting, newSandbox);
    } catch (error) {
      interpreter.close();
      throw new SandboxError(
        'SANDBOX_START_FAILED',
        `the Python interpreter did not start: ${(error as Error).message}`,
      );
    }
    return interpreter;
  }

  /** The driver compiled its source itself (it was given no compiled code, or code of another Python). */
  get compiled(): boolean {
    return this.#compiled;
  }

  get alive(): boolean {
    return this.#dead === undefined;
  }

  /** Started and asked nothing yet (beyond its greeting): its processes are as the driver booted. */
  get untouched(): boolean {
    return this.#requests <= 1;
  }

  #why(): string {
    const last = this.#stderr.trim().split('\n').pop();
    return last ? `: ${last}` : '';
  }

  #lose(reason: string, pastDeadline = false): void {
    if (this.#dead !== undefined) return;
    this.#dead = reason;
    this.#process.kill();
    const pending = this.#pending;
    this.#pending = undefined;
    pending?.reject(new InterpreterLost(reason, pastDeadline));
  }

  #onData(chunk: Buffer): void {
    this.#buffer = this.#buffer.length === 0 ? chunk : Buffer.concat([this.#buffer, chunk]);
    for (;;) {
      const newline = this.#buffer.indexOf(10);
      if (newline < 0) {
        if (this.#buffer.length > 200) this.#lose('the interpreter sent a malformed frame');
        return;
      }
      const [nonce, size] = this.#buffer.subarray(0, newline).toString().split(' ');
      if (nonce !== this.#nonce || !/^\d+$/.test(size ?? '')) {
        this.#lose('the interpreter sent a malformed frame');
        return;
      }
      const end = newline + 1 + Number(size);
      if (this.#buffer.length < end) return;
      const body = this.#buffer.subarray(newline + 1, end).toString();
      this.#buffer = this.#buffer.subarray(end);
      const pending = this.#pending;
      let value: unknown;
      try {
        value = JSON.parse(body);
      } catch {
        this.#lose('the interpreter sent a malformed frame');
        return;
      }
      if (!pending) {
        this.#lose('the interpreter sent an unexpected frame');
        return;
      }
      if (typeof value === 'object' && value !== null && 'call' in value) {
        // A judge's question in the middle of a run: answered, and the run goes on.
        if (!pending.onCall) {
          this.#lose('the interpreter sent an unexpected frame');
          return;
        }
        const onCall = pending.onCall;
        onCall((value as { call: JudgeCall }).call).then(
          (answer) => {
            if (this.#pending === pending) this.#send({ op: 'answer', answer });
          },
          (error: Error) => this.#lose(`a judge's call failed: ${error.message}`),
        );
        continue;
      }
      this.#pending = undefined;
      pending.resolve(value);
    }
  }

  #send(message: object): void {
    const data = Buffer.from(JSON.stringify(message));
    this.#process.stdin.write(`${this.#nonce} ${data.length}\n`);
    this.#process.stdin.write(data);
  }

  /** Sends one request (none: wait for the greeting) and waits at most `limitMs` for its answer. */
  #request(
    message: object | undefined,
    limitMs: number,
    onCall?: (call: JudgeCall) => Promise<JudgeAnswer>,
  ): Promise<unknown> {
    this.#requests += 1;
    const task = this.#queue.then(
      () =>
        new Promise<unknown>((resolve, reject) => {
          if (this.#dead !== undefined) {
            reject(new InterpreterLost(this.#dead));
            return;
          }
          const timer = setTimeout(() => this.#lose('the interpreter stopped answering', true), limitMs);
          this.#pending = {
            onCall,
            resolve: (value) => {
              clearTimeout(timer);
              resolve(value);
            },
            reject: (error) => {
              clearTimeout(timer);
              reject(error);
            },
          };
          if (message !== undefined) this.#send(message);
        }),
    );
    this.#queue = task.catch(() => {});
    return task;
  }

  /**
   * Fresh globals: every process the driver started is killed, what they left beside the file system
   * cleared, a new worker forked. False when the driver could not bring that back to its start (the
   * interpreter must then be replaced by a new process tree).
   */
  async reset(agent = '0'): Promise<boolean> {
    const reply = (await this.#request({ op: 'reset', agent }, SLACK_MS)) as { clean?: unknown };
    return reply?.clean === true;
  }

  /**
   * `count` copies of agent `agent`'s worker, forked inside the sandbox (copy-on-write), each the
   * worker of a new agent key. Throws `SANDBOX_START_FAILED` when the driver could not make them.
   */
  async fork(agent: string, count: number): Promise<ForkReply> {
    const reply = (await this.#request({ op: 'fork', agent, count }, SLACK_MS)) as Partial<ForkReply> & {
      error?: string;
    };
    const agents = reply?.agents;
    if (
      !Array.isArray(agents) ||
      agents.length !== count ||
      !agents.every((key) => typeof key === 'string')
    ) {
      throw new SandboxError(
        'SANDBOX_START_FAILED',
        `the Python interpreter could not be copied: ${reply?.error ?? 'a malformed answer'}`,
      );
    }
    const notCopied = Array.isArray(reply.notCopied)
      ? reply.notCopied.filter((n) => typeof n === 'string')
      : [];
    return { agents, notCopied, restarted: reply.restarted === true };
  }

  /** The driver's warm pool: its idle spare and that spare's memory. */
  async pool(): Promise<DriverPool> {
    const reply = (await this.#request({ op: 'pool' }, SLACK_MS)) as {
      idle?: unknown;
      pss?: unknown;
      limit?: unknown;
    };
    const count = (value: unknown) => (typeof value === 'number' && value >= 0 ? value : 0);
    return { idle: count(reply?.idle), memoryBytes: count(reply?.pss), limit: count(reply?.limit) };
  }

  /** Ends agent `agent`'s worker and every process it started (a closed copy's). */
  async drop(agent: string): Promise<void> {
    await this.#request({ op: 'drop', agent }, SLACK_MS);
  }

  /** The channel of agent `agent`: its runs and its probe's calls. */
  channel(agent: string): AgentChannel {
    return {
      run: (target, codes, options) => this.run(target, codes, { ...options, agent }),
      call: (call, timeoutMs, maxOutputBytes) => this.call(call, timeoutMs, maxOutputBytes),
    };
  }

  async run(target: RunTarget, codes: readonly string[], options: RunOptions): Promise<RunReply> {
    const limits =
      typeof options.timeoutMs === 'number'
        ? codes.map(() => options.timeoutMs as number)
        : options.timeoutMs;
    const timeout = limits.map((ms) => ms / 1000);
    const own = limits.reduce((sum, ms) => sum + ms + GRACE_S * 1000, 0);
    // A judge's clock stops while the agent's side answers; those answers share a budget as long.
    const limit = (target === 'judge' ? 2 * own : own) + SLACK_MS;
    const reply = await this.#request(
      {
        op: 'run',
        target,
        codes,
        wrap: options.wrap,
        timeout,
        grace: GRACE_S,
        cap: options.maxOutputBytes,
        ...(options.stay ? { stay: true } : {}),
        ...(options.stay && options.spend ? { spend: true } : {}),
        ...(options.speculate ? { speculate: options.speculate } : {}),
        ...(options.proxy !== undefined ? { proxy: options.proxy } : {}),
        ...(options.agent !== undefined ? { agent: options.agent } : {}),
      },
      limit,
      target === 'judge' ? options.onCall : undefined,
    );
    return this.#checked(reply, codes.length);
  }

  /** One call of a judge's, in the probe kept by a `copy` run with `stay`. */
  async call(call: JudgeCall, timeoutMs: number, maxOutputBytes: number): Promise<RunReply> {
    const reply = await this.#request(
      { op: 'call', call, timeout: timeoutMs / 1000, grace: GRACE_S, cap: maxOutputBytes },
      timeoutMs + GRACE_S * 1000 + SLACK_MS,
    );
    return this.#checked(reply, 1);
  }

  #checked(reply: unknown, count: number): RunReply {
    const results = (reply as RunReply | undefined)?.results;
    if (!Array.isArray(results) || results.length !== count) {
      this.#lose('the interpreter sent a malformed answer');
      throw new InterpreterLost('the interpreter sent a malformed answer');
    }
    return reply as RunReply;
  }

  /** Resolves when the interpreter's whole process tree is gone (after `close`, or by itself). */
  get exited(): Promise<number> {
    return this.#process.exited;
  }

  close(): void {
    this.#lose('closed');
  }
}
