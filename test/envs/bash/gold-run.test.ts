import { afterAll, describe, expect } from 'vitest';
import type { Task } from '../../../src/core/task.js';
import { goldDigests, runGold } from '../../../src/envs/bash/gold-run.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import type { Sandbox } from '../../../src/sandbox/sandbox.js';
import { it } from '../../support/fixtures.js';
import { bwrapMissing } from '../../support/missing-components.js';

// The gold's run in a real bwrap evaluation sandbox: its changes and digests are read with the
// sandbox stopped only when the gold left a process running (one that could change the files while
// they are walked); a gold that left none is read as it is, nothing stopped (on docker a stop is a
// `docker pause`).
const provider = new BwrapProvider();
const noBwrap = await bwrapMissing();

afterAll(async () => {
  await provider.close();
});

const task = (gold: string): Task => ({ id: 'gold', index: 0, query: 'q', gold, meta: {} });
const options = { timeoutMs: 10_000, ignored: new Set<string>(), layers: [] };

/** Counts the sandbox's stops (`quiesce`), which still stop its processes. */
function countStops(sandbox: Sandbox): { stops: number } {
  const counter = { stops: 0 };
  const quiesce = sandbox.quiesce.bind(sandbox);
  sandbox.quiesce = () => {
    counter.stops += 1;
    return quiesce();
  };
  return counter;
}

describe('runGold', () => {
  it('reads what a gold that left no process changed without stopping the sandbox', async ({ needs }) => {
    needs(noBwrap);
    const evaluator = await provider.create({});
    try {
      const counter = countStops(evaluator);
      const run = await runGold(evaluator, task('echo gold > /tmp/g && echo done'), options);
      expect(run).toMatchObject({ output: 'done\n', corrupt: false, idle: true });
      expect(run.changes).toEqual(expect.arrayContaining([expect.objectContaining({ path: 'tmp/g' })]));
      expect(await goldDigests(evaluator, run)).toEqual({ '/tmp/g': expect.stringMatching(/^file:/) });
      expect(counter.stops).toBe(0);
    } finally {
      await evaluator.close();
    }
  });

  it('stops the sandbox while it reads a gold that left a process running', async ({ needs }) => {
    needs(noBwrap);
    const evaluator = await provider.create({});
    try {
      const counter = countStops(evaluator);
      // The background job outlives the one second the run waits for it, then writes.
      const run = await runGold(
        evaluator,
        task('echo gold > /tmp/g; (sleep 3; echo late > /tmp/late) &'),
        options,
      );
      expect(run).toMatchObject({ corrupt: false, idle: false });
      expect(run.changes.map((change) => change.path)).not.toContain('tmp/late');
      expect(counter.stops).toBe(1);
      expect(await goldDigests(evaluator, run)).toEqual({ '/tmp/g': expect.stringMatching(/^file:/) });
      expect(counter.stops).toBe(2);
    } finally {
      await evaluator.close();
    }
  });
});
