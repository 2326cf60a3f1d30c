import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/host/atomic-write.js';
import { newRunId } from './queue-keys.js';

/**
 * The run id of a distributed run, kept in `queue.json` of its run directory so that `--resume`
 * finds the run's jobs (and what finished while no `run` was gathering) again.
 */
export function runIdOf(outDir: string, resume: boolean): string {
  const path = join(outDir, 'queue.json');
  if (resume && existsSync(path)) {
    const { runId } = JSON.parse(readFileSync(path, 'utf8')) as { runId?: unknown };
    if (typeof runId === 'string' && /^[\w-]+$/.test(runId)) return runId;
  }
  const runId = newRunId();
  writeFileAtomic(path, `${JSON.stringify({ runId }, null, 2)}\n`);
  return runId;
}
