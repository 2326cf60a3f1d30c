import { afterAll } from 'vitest';
import type { Dataset, Task } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { PythonEnv, type PythonEnvOptions } from '../../../src/envs/python/python-env.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

/** What a test file of Python envs on demo/python in real bwrap sandboxes shares. */
export interface PythonEnvSuite {
  /** Why bwrap cannot run here, or null. */
  readonly noBwrap: string | null;
  /** A new env on demo/python with the file's defaults and `options`, closed when the file ends. */
  env(options?: Partial<PythonEnvOptions>): PythonEnv;
  /** Closes every env made so far. */
  closeAll(): Promise<void>;
  /** demo/python's tasks. */
  tasks(): readonly Task[];
}

/**
 * Sets up a test file's Python envs: demo/python loaded with the file's own cache before its tests,
 * every env and the bwrap provider closed after them. Call it at the top of the file.
 */
export async function pythonEnvSuite(defaults: Partial<PythonEnvOptions> = {}): Promise<PythonEnvSuite> {
  const provider = new BwrapProvider();
  const envs: PythonEnv[] = [];
  let dataset: Dataset | undefined;
  it.beforeAll(async ({ cache: _cache }) => {
    dataset = await resolveDataset('demo/python');
  }, 60_000);
  const closeAll = async () => {
    await Promise.all(envs.splice(0).map((env) => env.close()));
  };
  afterAll(async () => {
    await closeAll();
    await provider.close();
  });
  return {
    noBwrap: await bwrapMissing(),
    env(options = {}) {
      if (!dataset) throw new Error('demo/python is not loaded yet');
      const env = new PythonEnv({ dataset, provider, ...defaults, ...options });
      envs.push(env);
      return env;
    },
    closeAll,
    tasks() {
      if (!dataset) throw new Error('demo/python is not loaded yet');
      return dataset.tasks;
    },
  };
}
