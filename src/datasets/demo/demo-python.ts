import type { Task } from '../../core/task.js';
import type { DatasetSpec } from '../dataset-spec.js';
import { DEMO_PYTHON_TASKS } from './demo-python-tasks.js';

/**
 * `demo/python`: function-writing tasks in MBPP's shape (gold function, `assert` tests, optional
 * setup code in meta as `tests` and `test_setup_code`), written for intercode and shipped inside the
 * package so the Python env runs offline.
 */
export function demoPythonDataset(): DatasetSpec {
  return {
    id: 'demo/python',
    env: 'python',
    description:
      'built-in Python function tasks (numbers, strings, lists, dicts, algorithms) with MBPP-style tests',
    taskCount: DEMO_PYTHON_TASKS.length,
    groupBy: 'kind',
    files: [],
    builtIn: true,
    async load() {
      const tasks: Task[] = DEMO_PYTHON_TASKS.map((task, index) => ({
        id: task.id,
        index,
        query: task.query,
        gold: task.gold,
        group: task.group,
        meta: { tests: task.tests, test_setup_code: task.test_setup_code },
      }));
      return { id: 'demo/python', env: 'python', tasks, assets: {} };
    },
  };
}
