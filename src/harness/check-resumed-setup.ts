import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { UsageError } from '../core/errors.js';
import { readRunSummary } from './run-files/read-run-summary.js';
import type { RunDescription } from './run-summary.js';

/** The setting of a planned run, as its summary would describe it (`RunPlan.describe` and the agent's). */
export type ResumedSetup = Partial<RunDescription>;

/** Compared in this order (the agent first: another agent explains the rest). */
const FIELDS = [
  'agent',
  'model',
  'strategy',
  'backend',
  'image',
  'engine',
  'compat',
  'deterministic',
  'handicap',
  'maxTurns',
] as const satisfies readonly (keyof RunDescription)[];

type Field = (typeof FIELDS)[number];
type Value = string | number | boolean;

/** How a summary's value of each field reads when it is absent (the value it stands for). */
const ABSENT: Partial<Record<Field, Value>> = { compat: 'fixed', handicap: false };

/** The options that give a run the previous run's value. */
function optionFor(field: Field, value: Value): string {
  switch (field) {
    case 'deterministic':
      return value ? 'pass --deterministic' : 'pass --no-deterministic';
    case 'handicap':
      return value ? 'pass --handicap' : 'leave out --handicap';
    case 'maxTurns':
      return `pass --max-turns ${value}`;
    default:
      return `pass --${field} ${value}`;
  }
}

/** A field's name as the message says it. */
const NAMES: Partial<Record<Field, string>> = { maxTurns: 'max turns' };

/**
 * Before a run continues the one in `outDir` (`--resume`): its summary, when it wrote one, must
 * name the setting this run would use (agent, model and strategy, backend, image, SQL engine,
 * compatibility and deterministic modes, schema hint, turns), or the run would mix episodes of two
 * settings under one summary (an image built in between changes what a dataset with its own image
 * runs on). Throws a one-line UsageError naming the option that continues it. `compat` and
 * `handicap` left out mean `fixed` and none, on either side; any other field the summary
 * or this run does not name (SQL has no image; summaries before 2026-12-04 name none) is not
 * compared; a run killed before it wrote a summary is not checked.
 */
export function checkResumedSetup(outDir: string, planned: ResumedSetup): void {
  const path = join(outDir, 'summary.json');
  if (!existsSync(path)) return;
  const previous = readRunSummary(path);
  for (const field of FIELDS) {
    const would = planned[field] ?? ABSENT[field];
    const was = previous[field] ?? ABSENT[field];
    if (was === undefined || would === undefined || was === would) continue;
    throw new UsageError(
      `--resume: ${outDir} was played with ${NAMES[field] ?? field} ${was}, this run would use ${would}: ${optionFor(field, was)} to continue it`,
    );
  }
}
