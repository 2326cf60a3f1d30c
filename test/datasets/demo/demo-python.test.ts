import { beforeAll, describe, expect, it } from 'vitest';
import type { Dataset } from '../../../src/core/task.js';
import { createDatasetRegistry } from '../../../src/datasets/dataset-registry.js';
import { demoPythonDataset } from '../../../src/datasets/demo/demo-python.js';
import { DEMO_PYTHON_TASKS } from '../../../src/datasets/demo/demo-python-tasks.js';
import { createEnvRegistry } from '../../../src/envs/env-registry.js';
import { referenceFunctionName } from '../../../src/envs/python/function-names.js';

// The tasks of `demo/python` are well formed (MBPP's shape); demo-python.gold.test.ts has the gold agent
// solve them.
let dataset: Dataset;

beforeAll(async () => {
  dataset = await demoPythonDataset().load();
});

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
});
