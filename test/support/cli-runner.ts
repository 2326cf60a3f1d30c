import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { expect } from 'vitest';
import { BIN, MIRROR, PROJECT_ROOT } from './project.js';

export interface CliResult {
  readonly status: number | null;
  readonly signal: NodeJS.Signals | null;
  readonly stdout: string;
  readonly stderr: string;
}

export interface CliOptions {
  /** INTERCODE_CACHE_DIR of the run (share one per test file: layers are built once). */
  readonly cache: string;
  readonly cwd?: string;
  readonly input?: string;
  /** Variables over the inherited environment (INTERCODE_DATA_MIRROR is the local mirror unless set here). */
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
}

/** A CLI run started in the background. */
export interface StartedCli {
  /** Node itself is the child: its pid owns the sandboxes and servers the run starts. */
  readonly child: ChildProcess;
  readonly done: Promise<CliResult>;
}

function cliEnv(options: CliOptions): NodeJS.ProcessEnv {
  return {
    ...process.env,
    INTERCODE_CACHE_DIR: options.cache,
    INTERCODE_DATA_MIRROR: MIRROR,
    INTERCODE_DEBUG: '',
    ...options.env,
  };
}

/** Runs `intercode <args>` (the compiled CLI, as a user would) to the end. */
export function intercode(args: readonly string[], options: CliOptions): CliResult {
  const result = spawnSync(process.execPath, [BIN, ...args], {
    encoding: 'utf8',
    cwd: options.cwd ?? PROJECT_ROOT,
    env: cliEnv(options),
    input: options.input ?? '',
    timeout: options.timeoutMs ?? 60_000,
  });
  return { status: result.status, signal: result.signal, stdout: result.stdout, stderr: result.stderr };
}

/** Starts `intercode <args>` in the background; the caller waits for `done` or kills `child`. */
export function startIntercode(args: readonly string[], options: CliOptions): StartedCli {
  const child = spawn(process.execPath, [BIN, ...args], {
    cwd: options.cwd ?? PROJECT_ROOT,
    env: cliEnv(options),
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => {
    stdout += chunk;
  });
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => {
    stderr += chunk;
  });
  const done = new Promise<CliResult>((resolve) => {
    child.on('close', (status, signal) => resolve({ status, signal, stdout, stderr }));
  });
  return { child, done };
}

/**
 * The CLI of one test file: every run gets the file's cache and the local mirror unless told
 * otherwise, and a run started in the background is killed (SIGKILL) and awaited by `stopAll` if it
 * still runs then.
 */
export class CliRunner {
  readonly #cache: string;
  readonly #started = new Set<StartedCli>();

  constructor(cache: string) {
    this.#cache = cache;
  }

  /** The INTERCODE_CACHE_DIR the runs share. */
  get cache(): string {
    return this.#cache;
  }

  /** Runs `intercode <args>` to the end. */
  run(args: readonly string[], options: Partial<CliOptions> = {}): CliResult {
    return intercode(args, { cache: this.#cache, ...options });
  }

  /** Starts `intercode <args>` in the background. */
  start(args: readonly string[], options: Partial<CliOptions> = {}): StartedCli {
    const started = startIntercode(args, { cache: this.#cache, ...options });
    this.#started.add(started);
    void started.done.then(() => this.#started.delete(started));
    return started;
  }

  /** Kills the runs still going and waits until they are gone. */
  async stopAll(): Promise<void> {
    const running = [...this.#started];
    for (const { child } of running) {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    }
    await Promise.all(running.map(({ done }) => done));
  }
}

/** Asserts the contract of a failed command: exit 1, one `intercode:` line on stderr, no stack trace. */
export function expectOneLineError(result: CliResult, pattern?: RegExp): void {
  expect(result.stderr).toMatch(/^intercode: [^\n]+\n$/);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  if (pattern) expect(result.stderr).toMatch(pattern);
  expect(result.status).toBe(1);
}
