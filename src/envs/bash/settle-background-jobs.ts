import { setTimeout as sleep } from 'node:timers/promises';
import { LEFTOVER_PROCESSES_COMMAND } from '../../sandbox/leftover-processes.js';
import type { Sandbox } from '../../sandbox/sandbox.js';

/** How long scoring waits for a shell's background jobs to end. */
const SETTLE_MS = 1_000;

/**
 * Waits (up to {@link SETTLE_MS}) for the background jobs of a sandbox's shell (`cmd &`) to end, so
 * that the file system is compared once they are done rather than at whatever point they reached
 * (NL2Bash fs1/11 compresses files with `xargs -P10 … &`). Each command of a session runs in its
 * own child of the shell's controller, so `jobs` would not see them: the check lists the processes
 * the gold left running (builtins only; a sandbox without any costs one round trip). Resolves true
 * when none is left: then only the sandbox's own machinery runs (its init, the shell's controller,
 * which runs nothing until asked), no process can change its files, and none can start.
 */
export async function settleBackgroundJobs(sandbox: Sandbox): Promise<boolean> {
  const deadline = performance.now() + SETTLE_MS;
  for (;;) {
    const jobs = await sandbox.session().run(LEFTOVER_PROCESSES_COMMAND, { timeoutMs: SETTLE_MS });
    if (jobs.timedOut) return false;
    if (jobs.output.trim() === '') return jobs.exitCode === 0;
    if (performance.now() > deadline) return false;
    await sleep(10);
  }
}
