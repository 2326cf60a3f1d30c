import { describe, expect } from 'vitest';
import { createEnvRegistry } from '../../../src/envs/env-registry.js';
import { pythonGoldCacheStats } from '../../../src/envs/python/gold-run.js';
import { runKeptGoldBench } from '../../../src/harness/bench/kept-gold-bench.js';
import { pythonEnvSuite } from '../../envs/python/python-env-suite.js';
import { it } from '../../support/fixtures.js';

// The bench of tasks played before, on the Python env in real bwrap sandboxes: every measured
// episode finds its gold in the cache.
const suite = await pythonEnvSuite();
const python = createEnvRegistry().get('python');

describe('runKeptGoldBench', () => {
  it('plays each task once, then measures episodes whose gold the cache answers for', async ({ needs }) => {
    needs(suite.noBwrap);
    const tasks = suite.tasks().slice(0, 3);
    const before = pythonGoldCacheStats();
    const figures = await runKeptGoldBench({
      backend: 'bwrap',
      group: 'python (demo/python)',
      tasks,
      createEnv: () => suite.env({ goldCache: true }),
      goldActions: (task) => python.goldActions(task),
      samples: 2,
    });
    expect(figures.map((figure) => [figure.name, figure.unit, figure.n])).toEqual([
      ['whole gold episode, task played before (gold kept)', 'ms', 2],
      ['gold episodes per second, concurrency 2, tasks played before', 'episodes/s', 1],
    ]);
    const after = pythonGoldCacheStats();
    // Two tasks (as many as the samples) run their gold once; the 2 + 2 measured episodes and the
    // second env's first one find it.
    expect(after.misses - before.misses).toBeLessThanOrEqual(2);
    expect(after.hits - before.hits).toBeGreaterThanOrEqual(5);
  });
});
