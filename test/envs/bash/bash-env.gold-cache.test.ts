import { afterAll, describe, expect } from 'vitest';
import type { Dataset, Task } from '../../../src/core/task.js';
import { BashEnv, type BashEnvOptions } from '../../../src/envs/bash/bash-env.js';
import { bashGoldCacheStats } from '../../../src/envs/bash/bash-gold.js';
import { DETERMINISTIC_CLOCK_MS } from '../../../src/sandbox/deterministic-clock.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// The gold cache of the Bash env (real bwrap sandboxes): a gold that prints and writes a random
// UUID tells a kept or shared run (the same UUID again) from a new one (another UUID).
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();
const envs: BashEnv[] = [];

const UUID = 'mkdir -p /out && cat /proc/sys/kernel/random/uuid | tee /out/id.txt';

function task(index: number, gold: string): Task {
  return { id: `t${index}`, index, query: `task ${index}`, gold, meta: {} };
}

const dataset: Dataset = {
  id: 'test/gold-cache',
  env: 'bash',
  tasks: [task(0, UUID), task(1, `${UUID}; echo second`), task(2, 'sleep 5'), task(3, UUID)],
  assets: {},
};

function env(options: Partial<BashEnvOptions> = {}): BashEnv {
  const made = new BashEnv({
    dataset,
    provider,
    deterministic: { clockMs: DETERMINISTIC_CLOCK_MS },
    ...options,
  });
  envs.push(made);
  return made;
}

/** The gold's output of a new episode of task `index`, and the reward of the gold replayed by the agent. */
async function gold(made: BashEnv, index: number): Promise<{ output: unknown; value: number }> {
  await made.reset({ index });
  await made.step(dataset.tasks[index]!.gold as string);
  const score = await made.score();
  return { output: score.details?.goldOutput, value: score.value };
}

afterAll(async () => {
  await Promise.all(envs.map((made) => made.close()));
  await provider.close();
});

describe('BashEnv gold cache', () => {
  it('reuses a task gold run in deterministic mode, across episodes and envs, and keys it by the gold', async ({
    needs,
  }) => {
    needs(noBwrap);
    const first = env();
    const a = await gold(first, 0);
    expect(a.output).toMatch(/^[0-9a-f-]{36}\n$/);
    // The agent's own UUID differs from the gold's: not the whole reward, whatever the cache does.
    expect(a.value).toBeLessThan(1);
    expect((await gold(first, 0)).output).toBe(a.output);
    expect((await gold(env(), 0)).output).toBe(a.output);
    // Another gold text is another key (another run, another UUID).
    const b = await gold(first, 1);
    expect(b.output).toMatch(/^[0-9a-f-]{36}\nsecond\n$/);
    expect(b.output).not.toBe(`${a.output}second\n`);
  }, 120_000);

  it('gives episodes of a task that start together one gold run', async ({ needs }) => {
    needs(noBwrap);
    const group = [env(), env(), env()];
    const outputs = await Promise.all(group.map((made) => gold(made, 3)));
    expect(new Set(outputs.map((played) => played.output)).size).toBe(1);
  }, 120_000);

  it('scores a copy of a forked episode against the kept gold, its files included', async ({ needs }) => {
    needs(noBwrap);
    const original = env();
    const kept = await gold(original, 0);
    await original.reset({ index: 0 });
    // The agent writes the gold's file with the gold's own UUID: every part agrees.
    const id = String(kept.output).trim();
    await original.step(`mkdir -p /out && echo ${id} | tee /out/id.txt`);
    expect((await original.score()).value).toBe(1);
    const { envs: copies } = await original.fork(2);
    envs.push(...(copies as BashEnv[]));
    const scores = await Promise.all(copies.map((copy) => copy.score()));
    expect(scores.map((score) => score.value)).toEqual([1, 1]);
  }, 120_000);

  it('runs a gold again when it failed (its time limit), and when the cache is off', async ({ needs }) => {
    needs(noBwrap);
    const slow = env({ goldTimeoutMs: 500 });
    for (let episode = 0; episode < 2; episode += 1) {
      const { misses } = bashGoldCacheStats();
      await slow.reset({ index: 2 });
      expect((await slow.score()).goldCorrupt).toBe(true);
      // Its gold ran (a miss), both times.
      expect(bashGoldCacheStats().misses).toBe(misses + 1);
    }
    const off = [env({ goldCache: false }), env({ deterministic: undefined })];
    for (const made of off) {
      const one = await gold(made, 0);
      expect((await gold(made, 0)).output).not.toBe(one.output);
    }
  }, 120_000);
});
