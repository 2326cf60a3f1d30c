import type { Task } from '../../core/task.js';
import { builtinFile } from '../builtin-file.js';
import type { DatasetSpec } from '../dataset-spec.js';
import { DEMO_BASH_SETUP } from './demo-bash-setup.js';
import { DEMO_BASH_TASKS } from './demo-bash-tasks.js';

/**
 * `demo/bash`: Bash tasks written for intercode over its own small file system (/demo), shipped inside
 * the package so it runs offline. Tasks have `meta.fileSystem: 'demo'`; the asset `setupScript` (also
 * `setupScript:demo`) builds the file system.
 */
export function demoBashDataset(): DatasetSpec {
  return {
    id: 'demo/bash',
    env: 'bash',
    description: 'built-in Bash tasks (search, text, files, archives, checksums) on a small /demo tree',
    taskCount: DEMO_BASH_TASKS.length,
    groupBy: 'kind',
    files: [],
    builtIn: true,
    async load() {
      const setupScript = builtinFile('demo-bash-setup.sh', DEMO_BASH_SETUP);
      const tasks: Task[] = DEMO_BASH_TASKS.map((task, index) => ({
        id: task.id,
        index,
        query: task.query,
        gold: task.gold,
        group: task.kind,
        meta: { fileSystem: 'demo' },
      }));
      return {
        id: 'demo/bash',
        env: 'bash',
        tasks,
        assets: { setupScript, 'setupScript:demo': setupScript },
      };
    },
  };
}
