import { existsSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { debianImagesDir } from './debian-image.js';
import { debianImageKey } from './debian-recipe.js';
import { imageProfiles } from './image-profiles.js';
import { removeTree } from './remove-tree.js';

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Entries of the image cache no current profile uses: images of older package lists (or builder
 * versions), builds abandoned by a dead process, logs of failed builds. Full paths.
 */
export function staleDebianImages(): string[] {
  const current = new Map<string, string>();
  for (const profile of imageProfiles()) {
    if (profile.kind === 'root') current.set(profile.name, debianImageKey(profile));
  }
  let names: string[] = [];
  try {
    names = readdirSync(debianImagesDir());
  } catch {
    return [];
  }
  const stale: string[] = [];
  for (const name of names.sort()) {
    const match = /^debian-(.+)-([0-9a-f]{16})(?:\.tmp-(\d+)-\d+(?:\.log)?|(\.failed\.log))?$/.exec(name);
    if (!match) continue;
    const [, profile, key, pid, failed] = match;
    const building = pid !== undefined;
    if (building ? !processAlive(Number(pid)) : failed !== undefined || current.get(profile!) !== key) {
      stale.push(join(debianImagesDir(), name));
    }
  }
  return stale;
}

/** Removes what `staleDebianImages` lists; returns the removed paths. Run it when no run uses old images. */
export function pruneDebianImages(): string[] {
  const stale = staleDebianImages();
  for (const path of stale) removeTree(path);
  return stale.filter((path) => !existsSync(path));
}
