import { existsSync } from 'node:fs';
import { DatasetError } from '../core/errors.js';
import type { Registry } from '../core/registry.js';
import type { Dataset } from '../core/task.js';
import { createDatasetRegistry, knownDatasetIds } from './dataset-registry.js';
import type { DatasetSpec } from './dataset-spec.js';
import { loadTaskFile } from './task-file.js';

export interface ResolveOptions {
  /** The environment (`--env`): required for a task file, checked against a registered dataset's. */
  readonly env?: string | undefined;
  /** The registry to look ids up in; default: the built-in datasets. */
  readonly registry?: Registry<DatasetSpec>;
}

/** A path rather than an id: a .json/.jsonl name, a relative or absolute path, or several folders deep. */
function looksLikePath(value: string): boolean {
  return (
    /\.jsonl?$/i.test(value) || /^[./~]/.test(value) || value.includes('\\') || value.split('/').length > 2
  );
}

/** A dataset found but not loaded yet: its id and environment are known, the tasks are not read. */
export interface DatasetLocation {
  /** Registry id, or the path of a task file. */
  readonly id: string;
  /** The environment its tasks run in. */
  readonly env: string;
  /** Loads it (downloads and checks upstream files on first use, reads a task file). */
  load(): Promise<Dataset>;
  /** A registered dataset (the built-in benchmarks and demos), not a user's task file. */
  readonly registered: boolean;
  /** The image its tasks were written for, used when built and the run names none (`DatasetSpec.image`). */
  readonly image?: string;
}

/**
 * Finds a dataset by registered id (`nl2bash/fs1`, `demo/bash`) or by the path of a user's JSON/JSONL
 * task file, without loading it, so that every option can be checked against its environment before
 * any download. Throws a one-line DatasetError for an unknown id (naming the known ids), a missing
 * file, a task file without an environment, or an environment that does not match the dataset's.
 */
export function locateDataset(idOrPath: string, options: ResolveOptions = {}): DatasetLocation {
  const registry = options.registry ?? createDatasetRegistry();
  if (registry.has(idOrPath)) {
    const spec = registry.get(idOrPath);
    if (options.env !== undefined && options.env !== spec.env) {
      throw new DatasetError(
        'DATASET_INVALID',
        `dataset ${spec.id} runs in the ${spec.env} environment, not ${options.env} (leave out --env)`,
      );
    }
    return {
      id: spec.id,
      env: spec.env,
      load: () => spec.load(),
      registered: true,
      ...(spec.image !== undefined ? { image: spec.image } : {}),
    };
  }
  if (existsSync(idOrPath) || looksLikePath(idOrPath)) {
    if (!existsSync(idOrPath))
      throw new DatasetError('DATASET_UNKNOWN', `task file ${idOrPath} does not exist`);
    const env = options.env;
    if (!env) {
      throw new DatasetError(
        'DATASET_INVALID',
        `task file ${idOrPath} needs an environment: pass --env (bash, sql, python or ctf)`,
      );
    }
    return { id: idOrPath, env, load: async () => loadTaskFile(idOrPath, env), registered: false };
  }
  throw new DatasetError(
    'DATASET_UNKNOWN',
    `unknown dataset "${idOrPath}" (known: ${knownDatasetIds(registry)}; or give the path of a .json or .jsonl task file)`,
  );
}

/** Finds and loads a dataset (see {@link locateDataset}). */
export async function resolveDataset(idOrPath: string, options: ResolveOptions = {}): Promise<Dataset> {
  return locateDataset(idOrPath, options).load();
}
