import type { DatasetSpec } from './dataset-spec.js';
import { loadUpstreamTasks } from './upstream-tasks.js';

const TASKS = 'data/python/mbpp/ic_mbpp.json';

/** `mbpp/test`: MBPP for the Python env; ids are MBPP's `task_id`, `tests` and `test_setup_code` stay in meta. */
export function mbppDataset(): DatasetSpec {
  return {
    id: 'mbpp/test',
    env: 'python',
    description: 'MBPP: write a Python function that passes the task tests',
    taskCount: 974,
    files: [TASKS],
    builtIn: false,
    async load() {
      const tasks = await loadUpstreamTasks(TASKS, {
        id: (record, index) => String(record.task_id ?? index),
      });
      return { id: 'mbpp/test', env: 'python', tasks, assets: {} };
    },
  };
}
