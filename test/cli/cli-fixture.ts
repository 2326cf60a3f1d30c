import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { expect } from 'vitest';
import { MIRROR, PROJECT_ROOT } from '../datasets/mirror-fixture.js';

// Runs the compiled CLI (dist/) as a user would: `npm test` builds it first.
export const BIN = join(PROJECT_ROOT, 'bin', 'intercode');

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
  readonly env?: Readonly<Record<string, string>>;
  readonly timeoutMs?: number;
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

/** Runs `intercode <args>` to the end. */
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

/** Starts `intercode <args>` in the background (node itself is the child: its pid owns the sandboxes). */
export function startIntercode(
  args: readonly string[],
  options: CliOptions,
): { child: ChildProcess; done: Promise<CliResult> } {
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

/** Asserts the contract of a failed command: exit 1, one `intercode:` line on stderr, no stack trace. */
export function expectOneLineError(result: CliResult, pattern?: RegExp): void {
  expect(result.stderr).toMatch(/^intercode: [^\n]+\n$/);
  expect(result.stderr).not.toMatch(/\n\s+at /);
  if (pattern) expect(result.stderr).toMatch(pattern);
  expect(result.status).toBe(1);
}

/** The complete lines of a JSONL file (a torn last line is left out), parsed. */
export function jsonLines<T = Record<string, unknown>>(path: string): T[] {
  if (!existsSync(path)) return [];
  const text = readFileSync(path, 'utf8');
  return text
    .slice(0, text.lastIndexOf('\n') + 1)
    .split('\n')
    .filter((line) => line !== '')
    .map((line) => JSON.parse(line) as T);
}

/** Polls until `check` is true (or fails after `timeoutMs`). */
export async function waitFor(check: () => boolean, timeoutMs = 30_000, what = 'condition'): Promise<void> {
  const started = Date.now();
  while (!check()) {
    if (Date.now() - started > timeoutMs) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

/** The owner label of a running process, `<pid>_<starttime>` (as src/sandbox/owner.ts makes it). */
export function ownerOf(pid: number): string {
  const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
  const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
  return `${pid}_${fields[19]}`;
}
