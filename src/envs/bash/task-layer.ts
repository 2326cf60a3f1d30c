import { readFileSync } from 'node:fs';
import type { Dataset, Task } from '../../core/task.js';
import { parseTopLevelIgnore, UPSTREAM_IGNORED } from './git-status-changes.js';
import type { ScriptLayerOptions } from './script-layer.js';

/** The top-level folders a dataset's evaluation ignores (its `.gitignore`, or upstream's list). */
export function ignoredFolders(dataset: Dataset): Set<string> {
  const gitignore = dataset.assets.gitignore;
  return gitignore ? parseTopLevelIgnore(readFileSync(gitignore, 'utf8')) : new Set(UPSTREAM_IGNORED);
}

/**
 * How the file-system layer under a task is built: the setup script of the task's file system, run
 * on `image`. Null when the dataset has no setup script. The Bash env and `intercode image build`
 * both use it, so they share one cached layer.
 */
export function taskLayerOptions(
  dataset: Dataset,
  task: Task,
  image: string,
  ignored: ReadonlySet<string> = ignoredFolders(dataset),
  clockMs?: number,
): (ScriptLayerOptions & { readonly scriptPath: string }) | null {
  const assets = dataset.assets;
  const fileSystem = typeof task.meta.fileSystem === 'string' ? task.meta.fileSystem : task.group;
  const path = (fileSystem && assets[`setupScript:${fileSystem}`]) || assets.setupScript;
  if (!path) return null;
  return {
    name: `${dataset.id.replace(/[^\w.-]+/g, '-')}-${fileSystem ?? 'fs'}`,
    script: readFileSync(path, 'utf8'),
    image,
    keepEmptyUnder: ignored,
    ...(clockMs !== undefined ? { pinnedClockMs: clockMs } : {}),
    scriptPath: path,
  };
}
