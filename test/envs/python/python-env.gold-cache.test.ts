import { afterAll, describe, expect } from 'vitest';
import type { Dataset, Task } from '../../../src/core/task.js';
import { pythonGoldCacheStats } from '../../../src/envs/python/gold-run.js';
import { PythonEnv, type PythonEnvOptions } from '../../../src/envs/python/python-env.js';
import { DETERMINISTIC_CLOCK_MS } from '../../../src/sandbox/deterministic-clock.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// The gold cache of the Python env (real bwrap sandboxes): a gold function that prints a random
// UUID tells a kept or shared gold run (the same UUID in the gold's test output) from a new one.
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();
const envs: PythonEnv[] = [];

const GOLD = 'def ident(x):\n    import uuid\n    print(uuid.uuid4())\n    return x';

function task(index: number, gold: string, tests: string[]): Task {
  return { id: `t${index}`, index, query: `task ${index}`, gold, meta: { tests } };
}

const dataset: Dataset = {
  id: 'test/python-gold-cache',
  env: 'python',
  tasks: [
    task(0, GOLD, ['assert ident(1) == 1']),
    task(1, GOLD, ['assert ident(2) == 2']),
    task(2, 'def ident(x):\n    return x + 1', ['assert ident(1) == 1']),
  ],
  assets: {},
};

function env(options: Partial<PythonEnvOptions> = {}): PythonEnv {
  const made = new PythonEnv({
    dataset,
    provider,
    deterministic: { clockMs: DETERMINISTIC_CLOCK_MS },
    ...options,
  });
  envs.push(made);
  return made;
}

/** The gold's output on the first test in a new episode of task `index` (the agent submits `ident`). */
async function goldOutput(made: PythonEnv, index: number): Promise<unknown> {
  await made.reset({ index });
  await made.step(dataset.tasks[index]!.gold as string);
  const score = await made.score();
  const tests = score.details?.tests as { gold: { output: unknown } }[];
  return tests[0]!.gold.output;
}

afterAll(async () => {
  await Promise.all(envs.map((made) => made.close()));
  await provider.close();
});

describe('PythonEnv gold cache', () => {
  it('reuses a task gold run in deterministic mode, shares one among episodes that start together, keys it by the tests', async ({
    needs,
  }) => {
    needs(noBwrap);
    const first = env();
    const output = await goldOutput(first, 0);
    expect(output).toMatch(/^[0-9a-f-]{36}$/);
    expect(await goldOutput(first, 0)).toBe(output);
    const group = await Promise.all([env(), env(), env()].map((made) => goldOutput(made, 1)));
    expect(new Set(group).size).toBe(1);
    expect(group[0]).not.toBe(output);
  }, 120_000);

  it('runs a gold that fails its own tests again, and every gold when the cache is off', async ({
    needs,
  }) => {
    needs(noBwrap);
    const made = env();
    for (let episode = 0; episode < 2; episode += 1) {
      const { misses } = pythonGoldCacheStats();
      await made.reset({ index: 2 });
      await made.step('def ident(x):\n    return x');
      expect((await made.score()).goldCorrupt).toBe(true);
      // Its gold ran (a miss), both times.
      expect(pythonGoldCacheStats().misses).toBe(misses + 1);
    }
    for (const off of [env({ goldCache: false }), env({ deterministic: undefined })]) {
      const one = await goldOutput(off, 0);
      expect(await goldOutput(off, 0)).not.toBe(one);
    }
  }, 120_000);
});
