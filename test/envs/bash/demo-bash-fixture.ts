/**
 * The demo/bash setting the BashEnv tests share: a bwrap provider, the dataset (its file system
 * built once, in the test file's own cache), its tasks by id, and envs that are all closed with the
 * provider after the file. Call `useDemoBash()` at the top level of a test file: it registers the
 * hooks.
 */
import { afterAll } from 'vitest';
import type { Env } from '../../../src/core/env.js';
import type { Dataset } from '../../../src/core/task.js';
import { resolveDataset } from '../../../src/datasets/resolve-dataset.js';
import { BashEnv, type BashEnvOptions } from '../../../src/envs/bash/bash-env.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';

export interface DemoBash {
  readonly provider: BwrapProvider;
  /** demo/bash, once the file's first hook has run. */
  readonly dataset: Dataset;
  /** The index of a demo task; throws for an unknown id. */
  at(id: string): number;
  /** A demo task's gold command. */
  gold(id: string): string;
  /** A BashEnv on demo/bash, closed after the file. */
  bashEnv(options?: Partial<BashEnvOptions>): BashEnv;
  /** Envs made elsewhere (forks' copies) to close after the file too. */
  track(...envs: Env[]): void;
}

/** `warmUp`: play a first reset before the tests, which builds (and caches) the demo layer. */
export function useDemoBash(options: { readonly warmUp?: boolean } = {}): DemoBash {
  const provider = new BwrapProvider();
  const opened: Env[] = [];
  let dataset: Dataset | undefined;
  const demo: DemoBash = {
    provider,
    get dataset(): Dataset {
      if (!dataset) throw new Error('demo/bash is read in the first hook');
      return dataset;
    },
    at(id) {
      const index = demo.dataset.tasks.findIndex((task) => task.id === id);
      if (index < 0) throw new Error(`no demo task ${id}`);
      return index;
    },
    gold: (id) => demo.dataset.tasks[demo.at(id)]!.gold as string,
    bashEnv(envOptions = {}) {
      const env = new BashEnv({ dataset: demo.dataset, provider, ...envOptions });
      opened.push(env);
      return env;
    },
    track: (...envs) => {
      opened.push(...envs);
    },
  };
  it.beforeAll(async ({ cache: _cache }) => {
    dataset = await resolveDataset('demo/bash');
    if (options.warmUp) await demo.bashEnv().reset({ index: 0 });
  }, 120_000);
  afterAll(async () => {
    await Promise.all(opened.map((env) => env.close()));
    await provider.close();
  });
  return demo;
}
