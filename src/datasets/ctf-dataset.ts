import type { DatasetSpec } from './dataset-spec.js';
import { upstreamCachePath } from './fetch-upstream-file.js';
import { fetchUpstreamFiles } from './fetch-upstream-files.js';
import { missingUpstreamReason, upstreamFilesUnder } from './upstream-files.js';
import { UPSTREAM_MISSING } from './upstream-manifest.js';
import { loadUpstreamTasks } from './upstream-tasks.js';

const TASKS = 'data/ctf/ic_ctf.json';
const ASSETS = 'data/ctf/task_assets/';

/** Task ids whose asset folder is known upstream but not pinned (so cannot be downloaded verified). */
function missingAssetIds(): string[] {
  return UPSTREAM_MISSING.filter((missing) => missing.path.startsWith(ASSETS)).map((missing) =>
    missing.path.slice(ASSETS.length).replace(/\/$/, ''),
  );
}

/**
 * `ctf/picoctf`: the picoCTF tasks. Ids are upstream's `task_id`, the group is the first tag. The asset
 * `taskAssets` is a folder holding one sub-folder per task id with that task's files (never a `solution/`
 * folder: those are not in the manifest). A task whose files are not available has `meta.unavailable`.
 */
export function ctfDataset(): DatasetSpec {
  const files = [TASKS, ...upstreamFilesUnder(ASSETS).map((file) => file.path)];
  const missing = missingAssetIds();
  const first = UPSTREAM_MISSING.find((entry) => entry.path.startsWith(ASSETS));
  return {
    id: 'ctf/picoctf',
    env: 'ctf',
    description: 'picoCTF capture-the-flag tasks, grouped by their first tag',
    taskCount: 100,
    groupBy: 'tag',
    files,
    builtIn: false,
    ...(missing.length > 0
      ? { partial: `the assets of tasks ${missing.join(', ')} are not available (${first?.reason})` }
      : {}),
    async load() {
      await fetchUpstreamFiles(files);
      const tasks = await loadUpstreamTasks(TASKS, {
        id: (record, index) => String(record.task_id ?? index),
        group: (record) =>
          Array.isArray(record.tags) && typeof record.tags[0] === 'string' ? record.tags[0] : undefined,
        meta: (record) => {
          const reason = missingUpstreamReason(`${ASSETS}${String(record.task_id)}/`);
          return reason ? { unavailable: `its task assets are not available: ${reason}` } : {};
        },
      });
      return {
        id: 'ctf/picoctf',
        env: 'ctf',
        tasks,
        assets: { taskAssets: upstreamCachePath(ASSETS.slice(0, -1)) },
      };
    },
  };
}
