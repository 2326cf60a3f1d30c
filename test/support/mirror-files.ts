import { chmodSync, copyFileSync, mkdirSync, readdirSync, statSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { MIRROR } from './project.js';

/** Copies some upstream paths of the mirror into a new mirror folder, writable (the mirror may be read-only). */
export function copyMirrorSubset(target: string, paths: readonly string[]): string {
  for (const path of paths) {
    mkdirSync(dirname(join(target, path)), { recursive: true });
    copyFileSync(join(MIRROR, path), join(target, path));
    chmodSync(join(target, path), 0o644);
  }
  return target;
}

/** Every regular file under a folder (relative paths), empty when it does not exist. */
export function filesUnder(dir: string): string[] {
  let entries: string[];
  try {
    entries = readdirSync(dir, { recursive: true }) as string[];
  } catch {
    return [];
  }
  return entries.filter((entry) => statSync(join(dir, entry)).isFile()).sort();
}
