import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

/** Temporary directories made on request and removed together. */
export class TempDirs {
  readonly #made: string[] = [];

  /** A fresh directory `intercode-<prefix>-XXXXXX` under the system's temporary folder. */
  make(prefix: string): string {
    const dir = mkdtempSync(join(tmpdir(), `intercode-${prefix}-`));
    this.#made.push(dir);
    return dir;
  }

  /** Removes every directory made so far (also when a test left files or folders inside). */
  removeAll(): void {
    for (const dir of this.#made.splice(0)) rmSync(dir, { recursive: true, force: true });
  }
}

/** A fresh temporary directory and the function that removes it. */
export function temporaryDir(prefix: string): { dir: string; remove: () => void } {
  const dirs = new TempDirs();
  const dir = dirs.make(prefix);
  return { dir, remove: () => dirs.removeAll() };
}
