import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { readRunSummary } from './run-files/read-run-summary.js';

/** The sandbox setup of a planned run that a resumed run must share with the episodes it continues. */
export interface ResumedSetup {
  readonly backend: string | undefined;
  readonly image: string | undefined;
}

/**
 * Before a run continues the one in `outDir` (`--resume`): its summary, when it wrote one, must name
 * the backend and image this run would use, or the run would mix episodes of two setups (an image
 * built in between changes what a dataset with its own image runs on). Throws a one-line UsageError
 * saying which option continues it. A summary that names neither (SQL, or written before
 * 2026-12-04) or no summary (a killed run) is not checked.
 */
export function checkResumedSetup(outDir: string, planned: ResumedSetup): void {
  const path = join(outDir, 'summary.json');
  if (!existsSync(path)) return;
  const previous = readRunSummary(path);
  const fields = [
    ['backend', previous.backend, planned.backend],
    ['image', previous.image, planned.image],
  ] as const;
  for (const [name, was, would] of fields) {
    if (was === undefined || would === undefined || was === would) continue;
    throw new UsageError(
      `--resume: ${outDir} was played with ${name} ${was}, this run would use ${would}: pass --${name} ${was} to continue it`,
    );
  }
}
