/**
 * `demo/python`: the tasks are well formed (MBPP's shape) and the gold agent solves every one of them
 * through the compiled CLI, each gold passing all of its own tests (`npm test` builds dist/ first).
 */
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../../src/core/task.js';
import { createDatasetRegistry } from '../../../src/datasets/dataset-registry.js';
import { demoPythonDataset } from '../../../src/datasets/demo/demo-python.js';
import { DEMO_PYTHON_TASKS } from '../../../src/datasets/demo/demo-python-tasks.js';
import { createEnvRegistry } from '../../../src/envs/env-registry.js';
import { referenceFunctionName } from '../../../src/envs/python/function-names.js';
import { BwrapProvider } from '../../../src/sandbox/index.js';
import { type CliOptions, intercode, jsonLines } from '../../cli/cli-fixture.js';
import { cleanup, tempDir } from '../mirror-fixture.js';

const made: string[] = [];
const cache = tempDir('demo-python-cache', made);
const base: CliOptions = { cache, timeoutMs: 120_000 };
let dataset: Dataset;
let available = false;

beforeAll(async () => {
  dataset = await demoPythonDataset().load();
  const provider = new BwrapProvider();
  available = (await provider.check()).ok;
  await provider.close();
});

afterAll(() => cleanup(made));

describe('demo/python tasks', () => {
  it('is registered for the python env with at least 20 tasks of every kind', () => {
    const spec = createDatasetRegistry().get('demo/python');
    expect(spec).toMatchObject({ env: 'python', builtIn: true, files: [], groupBy: 'kind' });
    expect(spec.taskCount).toBe(DEMO_PYTHON_TASKS.length);
    expect(dataset.tasks.length).toBeGreaterThanOrEqual(20);
    expect(new Set(dataset.tasks.map((task) => task.id)).size).toBe(dataset.tasks.length);
    expect(new Set(dataset.tasks.map((task) => task.group))).toEqual(
      new Set(['numbers', 'strings', 'lists', 'dicts', 'algorithms']),
    );
  });

  it('has MBPP-shaped tasks: a gold function and assert tests that call it by name', () => {
    for (const task of dataset.tasks) {
      const gold = task.gold as string;
      const name = referenceFunctionName(gold);
      expect(name, task.id).toBeDefined();
      const tests = task.meta.tests as string[];
      expect(tests.length, task.id).toBeGreaterThanOrEqual(3);
      for (const test of tests) {
        expect(test.startsWith('assert '), test).toBe(true);
        expect(test, task.id).toContain(`${name}(`);
      }
      expect(typeof task.meta.test_setup_code).toBe('string');
    }
    expect(createEnvRegistry().get('python').goldActions(dataset.tasks[0]!)).toEqual([
      dataset.tasks[0]!.gold,
      'submit digit_product',
    ]);
  });

  it('is solved by the gold agent through the CLI: every task 1.0, no corrupt gold', async (context) => {
    if (!available) context.skip();
    const out = join(cache, 'run');
    const result = intercode(['run', 'demo/python', '--out', out, '--json'], base);
    expect(result.stderr).toBe('');
    expect(result.status).toBe(0);
    expect(JSON.parse(result.stdout)).toMatchObject({ dataset: 'demo/python', env: 'python', agent: 'gold' });
    const episodes = jsonLines<{ taskId: string; maxReward: number; goldCorrupt?: boolean }>(
      join(out, 'episodes.jsonl'),
    );
    expect(episodes.map((episode) => episode.taskId).sort()).toEqual(
      DEMO_PYTHON_TASKS.map((task) => task.id).sort(),
    );
    for (const episode of episodes) {
      expect({
        id: episode.taskId,
        maxReward: episode.maxReward,
        corrupt: episode.goldCorrupt ?? false,
      }).toEqual({
        id: episode.taskId,
        maxReward: 1,
        corrupt: false,
      });
    }
  }, 180_000);
});
