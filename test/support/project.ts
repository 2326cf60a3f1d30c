import { join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';

/** The project root (where package.json is). */
export const PROJECT_ROOT = resolve(fileURLToPath(new URL('../..', import.meta.url)));

/** The compiled CLI as a user runs it (`npm test` builds dist/ first). */
export const BIN = join(PROJECT_ROOT, 'bin', 'intercode');

/**
 * The local mirror of the upstream data: `INTERCODE_DATA_MIRROR` when set (and not empty), else
 * `../shared/datasets/intercode` next to the project.
 */
export const MIRROR =
  process.env.INTERCODE_DATA_MIRROR || join(PROJECT_ROOT, '..', 'shared', 'datasets', 'intercode');
