import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { SandboxProvider, SandboxSpec } from '../sandbox/sandbox.js';
import { detached, marked } from './host-processes.js';

/**
 * The SIGKILL case runs a separate "owner" process that opens sandboxes and is then killed without
 * warning. This file holds both sides of that exchange; it does not load Vitest, so a provider's
 * fixture script can import it from the compiled package.
 */

/** What the owner process reports once its sandboxes run. */
export interface CrashOwnerReport {
  /** The provider's owner label of that process (see `HostProbe.currentOwner`). */
  readonly owner: string;
  readonly sandboxIds: readonly string[];
}

export interface CrashOwnerOptions {
  /** Marker for the background processes (the suite passes it as the last argument). */
  readonly marker?: string;
  readonly sandboxes?: number;
  readonly spec?: SandboxSpec;
}

/**
 * Owner side: opens sandboxes, each with marked background processes in two sessions (one of them
 * detached, see `detached`) and a running `exec`, prints one JSON line (`CrashOwnerReport`), then waits to be killed. It exits on its own
 * when its standard input closes, so a crashed test runner does not leave it behind.
 */
export async function runCrashOwner(
  provider: SandboxProvider,
  owner: string,
  options: CrashOwnerOptions = {},
): Promise<void> {
  const marker = options.marker ?? process.argv[process.argv.length - 1] ?? 'crash-owner';
  const sandboxIds: string[] = [];
  for (let index = 0; index < (options.sandboxes ?? 2); index += 1) {
    const sandbox = await provider.create({ ...options.spec, label: 'crash-owner' });
    sandboxIds.push(sandbox.id);
    await sandbox.session().run(`${marked(marker)} & ${detached(marker)} &`);
    const second = await sandbox.openSession();
    await second.run(`${marked(marker)} &`);
    sandbox.exec(marked(marker), { timeoutMs: 3_600_000 }).catch(() => {});
  }
  const report: CrashOwnerReport = { owner, sandboxIds };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  process.stdin.on('close', () => process.exit(1));
  process.stdin.resume();
}

/** Test side: starts the owner process and waits for its report. */
export async function startCrashOwner(
  command: readonly string[],
  marker: string,
  timeoutMs = 20_000,
): Promise<{ child: ChildProcess; report: CrashOwnerReport }> {
  const [program, ...args] = command;
  if (!program) throw new Error('crashOwnerCommand is empty');
  const child = spawn(program, [...args, marker], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  try {
    const report = await new Promise<CrashOwnerReport>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the crash owner did not report in ${timeoutMs} ms`)),
        timeoutMs,
      );
      createInterface({ input: child.stdout! }).once('line', (line) => {
        clearTimeout(timer);
        try {
          resolve(JSON.parse(line) as CrashOwnerReport);
        } catch {
          reject(new Error(`the crash owner printed ${JSON.stringify(line)}`));
        }
      });
      child.once('exit', (code, signal) => {
        clearTimeout(timer);
        reject(new Error(`the crash owner exited (${signal ?? code}) before reporting: ${stderr.trim()}`));
      });
      child.once('error', reject);
    });
    return { child, report };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
