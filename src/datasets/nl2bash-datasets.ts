import type { Task } from '../core/task.js';
import type { DatasetSpec } from './dataset-spec.js';
import { fetchUpstreamFiles } from './fetch-upstream-files.js';
import { loadUpstreamTasks } from './upstream-tasks.js';

/**
 * NL2Bash datasets. Every task has `meta.fileSystem` (`fs1`…`fs4`, `test`); the dataset's assets hold
 * `setupScript:<fileSystem>` (the upstream script that builds that file system) for each file system it
 * uses, `setupScript` when there is only one, and `gitignore` (the top-level folders upstream leaves out
 * of the state diff).
 */
const GITIGNORE = 'docker/docker.gitignore';

interface FileSystem {
  readonly name: string;
  readonly tasks: string;
  readonly setup: string;
  readonly count: number;
  readonly about: string;
}

const FILE_SYSTEMS: readonly FileSystem[] = [
  { n: 1, count: 60, about: 'file system 1 (/testbed)' },
  { n: 2, count: 53, about: 'file system 2 (/system)' },
  { n: 3, count: 60, about: 'file system 3 (/workspace, /backup)' },
  { n: 4, count: 27, about: 'file system 4 (no prepared files: system commands)' },
].map(({ n, count, about }) => ({
  name: `fs${n}`,
  tasks: `data/nl2bash/nl2bash_fs_${n}.json`,
  setup: `docker/bash_scripts/setup_nl2b_fs_${n}.sh`,
  count,
  about,
}));

const TEST_FILE_SYSTEM: FileSystem = {
  name: 'test',
  tasks: 'data/nl2bash/test_queries.json',
  setup: 'docker/bash_scripts/setup_fs.sh',
  count: 24,
  about: 'the small /testbed of the upstream Alpine image',
};

async function loadFileSystemTasks(fs: FileSystem, firstIndex: number, combined: boolean): Promise<Task[]> {
  return loadUpstreamTasks(fs.tasks, {
    firstIndex,
    ...(combined ? { id: (_record, index) => `${fs.name}/${index}` } : {}),
    group: () => fs.name,
    meta: () => ({ fileSystem: fs.name }),
  });
}

function nl2bashSpec(id: string, description: string, systems: readonly FileSystem[]): DatasetSpec {
  const files = [...systems.flatMap((fs) => [fs.tasks, fs.setup]), GITIGNORE];
  return {
    id,
    env: 'bash',
    description,
    taskCount: systems.reduce((sum, fs) => sum + fs.count, 0),
    groupBy: 'file system',
    files,
    builtIn: false,
    // The original ran these tasks in a container: a Debian root gives every machine the same files
    // (on `host`, fs1/55 reads this machine's whole /usr).
    image: 'debian:bash',
    async load() {
      const local = await fetchUpstreamFiles(files);
      const tasks: Task[] = [];
      for (const fs of systems)
        tasks.push(...(await loadFileSystemTasks(fs, tasks.length, systems.length > 1)));
      const assets: Record<string, string> = { gitignore: local[GITIGNORE]! };
      for (const fs of systems) assets[`setupScript:${fs.name}`] = local[fs.setup]!;
      if (systems.length === 1) assets.setupScript = local[systems[0]!.setup]!;
      return { id, env: 'bash', tasks, assets };
    },
  };
}

/** The NL2Bash datasets: `nl2bash/fs1`…`fs4`, `nl2bash/test`, and `nl2bash` (fs1–fs4 together). */
export function nl2bashDatasets(): DatasetSpec[] {
  return [
    ...FILE_SYSTEMS.map((fs) => nl2bashSpec(`nl2bash/${fs.name}`, `NL2Bash tasks on ${fs.about}`, [fs])),
    nl2bashSpec('nl2bash/test', `NL2Bash tasks on ${TEST_FILE_SYSTEM.about}`, [TEST_FILE_SYSTEM]),
    nl2bashSpec(
      'nl2bash',
      'all NL2Bash tasks of fs1–fs4 (ids fs1/0…), each on its own file system',
      FILE_SYSTEMS,
    ),
  ];
}
