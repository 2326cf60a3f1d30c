import { type ChildProcess, spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import type { Sandbox, SandboxProvider, SandboxSpec } from '../sandbox/sandbox.js';
import { detached, marked } from './host-processes.js';

/**
 * The SIGKILL case runs a separate "owner" process that opens sandboxes and is then killed without
 * warning. This file holds both sides of that exchange; it does not load Vitest, so a provider's
 * fixture script can import it from the compiled package.
 *
 * Protocol: the owner prints one JSON line (`CrashOwnerReport`) once its sandboxes run. When it then
 * reads the line `late` it starts one more `exec` in every sandbox, does not wait for it, and prints
 * `late`: the test kills it right away, while those commands are still starting.
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

const LONG = { timeoutMs: 3_600_000 };

/**
 * Owner side: opens sandboxes, each with marked background processes in two sessions (one of them
 * detached, see `detached`) and a running `exec`, reports, and waits to be killed. It exits on its
 * own when its standard input closes, so a crashed test runner does not leave it behind.
 */
export async function runCrashOwner(
  provider: SandboxProvider,
  owner: string,
  options: CrashOwnerOptions = {},
): Promise<void> {
  const marker = options.marker ?? process.argv[process.argv.length - 1] ?? 'crash-owner';
  const sandboxes: Sandbox[] = [];
  for (let index = 0; index < (options.sandboxes ?? 2); index += 1) {
    const sandbox = await provider.create({ ...options.spec, label: 'crash-owner' });
    sandboxes.push(sandbox);
    await sandbox.session().run(`${marked(marker)} & ${detached(marker)} &`);
    const second = await sandbox.openSession();
    await second.run(`${marked(marker)} &`);
    sandbox.exec(marked(marker), LONG).catch(() => {});
  }
  const report: CrashOwnerReport = { owner, sandboxIds: sandboxes.map((sandbox) => sandbox.id) };
  process.stdout.write(`${JSON.stringify(report)}\n`);
  createInterface({ input: process.stdin }).on('line', (line) => {
    if (line !== 'late') return;
    for (const sandbox of sandboxes) sandbox.exec(marked(marker), LONG).catch(() => {});
    process.stdout.write('late\n');
  });
  process.stdin.on('close', () => process.exit(1));
}

/** Test side: a running owner process. */
export interface CrashOwner {
  readonly child: ChildProcess;
  readonly report: CrashOwnerReport;
  /** Asks the owner to start one more command in every sandbox; resolves once it has. */
  startLate(): Promise<void>;
}

/** Test side: starts the owner process and waits for its report. */
export async function startCrashOwner(
  command: readonly string[],
  marker: string,
  timeoutMs = 20_000,
): Promise<CrashOwner> {
  const [program, ...args] = command;
  if (!program) throw new Error('crashOwnerCommand is empty');
  const child = spawn(program, [...args, marker], { stdio: ['pipe', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr!.on('data', (chunk: Buffer) => {
    stderr = (stderr + chunk.toString()).slice(-4000);
  });
  const lines = createInterface({ input: child.stdout! });
  const nextLine = () =>
    new Promise<string>((resolve, reject) => {
      const timer = setTimeout(
        () => reject(new Error(`the crash owner was silent for ${timeoutMs} ms`)),
        timeoutMs,
      );
      const onExit = (code: number | null, signal: string | null) => {
        clearTimeout(timer);
        reject(new Error(`the crash owner exited (${signal ?? code}): ${stderr.trim()}`));
      };
      child.once('exit', onExit);
      lines.once('line', (line) => {
        clearTimeout(timer);
        child.off('exit', onExit);
        resolve(line);
      });
    });
  try {
    const first = await nextLine();
    let report: CrashOwnerReport;
    try {
      report = JSON.parse(first) as CrashOwnerReport;
    } catch {
      throw new Error(`the crash owner printed ${JSON.stringify(first)}`);
    }
    const startLate = async () => {
      const answer = nextLine();
      child.stdin!.write('late\n');
      if ((await answer) !== 'late') throw new Error('the crash owner did not start the late commands');
    };
    return { child, report, startLate };
  } catch (error) {
    child.kill('SIGKILL');
    throw error;
  }
}
