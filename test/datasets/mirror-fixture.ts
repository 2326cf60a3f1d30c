/**
 * @deprecated The old home of the shared test helpers, kept so that imports not yet converted still
 * work: use `test/support/` (its `fixtures.ts` gives temporary folders that remove themselves).
 */
import { rmSync } from 'node:fs';
import { TempDirs } from '../support/temp-dirs.js';

export { copyMirrorSubset, filesUnder } from '../support/mirror-files.js';
export { MIRROR, PROJECT_ROOT } from '../support/project.js';
export { serveFolder } from '../support/serve-folder.js';

/** @deprecated A fresh temporary directory, removed by `cleanup(made)`: use the `tempDir` fixture. */
export function tempDir(prefix: string, made: string[]): string {
  const dir = new TempDirs().make(prefix);
  made.push(dir);
  return dir;
}

/** @deprecated Removes the directories `tempDir` listed in `made`. */
export function cleanup(made: string[]): void {
  for (const dir of made.splice(0)) rmSync(dir, { recursive: true, force: true });
}
