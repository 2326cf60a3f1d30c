import type { Quiesced } from '../../sandbox/process-freezer.js';
import type { Sandbox } from '../../sandbox/sandbox.js';

/**
 * Runs `work` with every process of `sandbox` stopped, then lets them run again. `idle`: the caller
 * knows nothing but the sandbox's own machinery runs (`settleBackgroundJobs`), so nothing can change
 * what `work` reads and nothing is stopped.
 */
export async function whileStopped<T>(sandbox: Sandbox, work: () => Promise<T>, idle = false): Promise<T> {
  if (idle) return work();
  const stopped = await sandbox.quiesce();
  try {
    return await work();
  } finally {
    await stopped.resume();
  }
}

/** What `quiesce` gives back when nothing had to be stopped: a resume that does nothing. */
export const NOTHING_STOPPED: Quiesced = { resume: async () => {} };
