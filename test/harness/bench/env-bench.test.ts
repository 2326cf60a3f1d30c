import { describe, expect } from 'vitest';
import { createEnvRegistry } from '../../../src/envs/env-registry.js';
import { runEnvBench } from '../../../src/harness/bench/env-bench.js';
import { pythonEnvSuite } from '../../envs/python/python-env-suite.js';
import { it } from '../../support/fixtures.js';

// The env bench on the Python env in real bwrap sandboxes: the figure of an env's warm pool.
const suite = await pythonEnvSuite();
const python = createEnvRegistry().get('python');

describe('runEnvBench', () => {
  for (const warm of [true, false]) {
    it(`reports the idle warm pool's memory of an env that has one (warm: ${warm})`, async ({ needs }) => {
      needs(suite.noBwrap);
      const figures = await runEnvBench({
        backend: 'bwrap',
        group: 'python (demo/python)',
        tasks: suite.tasks().slice(0, 2),
        createEnv: () => suite.env({ warm }),
        goldActions: (task) => python.goldActions(task),
        samples: 2,
        concurrency: [1],
      });
      const pool = figures.find((figure) => figure.name === 'idle warm pool memory');
      expect(pool).toMatchObject({ unit: 'MiB', n: 2, group: 'python (demo/python)' });
      if (warm) {
        // One spare per driver, each some MiB of its own.
        expect(pool!.p50).toBeGreaterThan(1);
        expect(pool!.max).toBeLessThan(256);
      } else {
        expect(pool!.max).toBe(0);
      }
      expect(figures.find((figure) => figure.name === 'whole gold episode')?.n).toBe(2);
    });
  }

  it('forks mid-episode: after the gold code, before the submission that ends the episode', async ({
    needs,
  }) => {
    needs(suite.noBwrap);
    // What each fork found: whether the episode's last step had ended it.
    const atFork: boolean[] = [];
    const figures = await runEnvBench({
      backend: 'bwrap',
      group: 'python (demo/python)',
      tasks: suite.tasks().slice(0, 2),
      createEnv: () => {
        const env = suite.env();
        let ended = false;
        const reset = env.reset.bind(env);
        const step = env.step.bind(env);
        const fork = env.fork.bind(env);
        return Object.assign(env, {
          reset: async (...args: Parameters<typeof env.reset>) => {
            ended = false;
            return reset(...args);
          },
          step: async (...args: Parameters<typeof env.step>) => {
            const result = await step(...args);
            ended = result.terminated;
            return result;
          },
          fork: async (count: number) => {
            atFork.push(ended);
            return fork(count);
          },
        });
      },
      goldActions: (task) => python.goldActions(task),
      samples: 2,
      concurrency: [1],
    });
    expect(python.goldActions(suite.tasks()[0]!).at(-1)).toMatch(/^submit /);
    expect(figures.find((figure) => figure.name === 'fork(8) after the gold actions')?.n).toBe(2);
    expect(atFork).toEqual([false, false]);
  });
});
