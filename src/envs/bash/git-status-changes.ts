import { readdirSync } from 'node:fs';
import { join } from 'node:path';
import type { FileChange } from '../../sandbox/sandbox.js';

/** One line of `git status --short`, as upstream reads it: a path and its status letters. */
export interface GitChange {
  readonly path: string;
  readonly status: string;
}

/** Top-level folders upstream's `.gitignore` leaves out of the state diff (docker/docker.gitignore). */
export const UPSTREAM_IGNORED = [
  'bin',
  'boot',
  'dev',
  'etc',
  'home',
  'lib',
  'media',
  'opt',
  'proc',
  'root',
  'run',
  'sbin',
  'srv',
  'sys',
  'usr',
  'var',
  '.dockerenv',
] as const;

/** Reads a `.gitignore` of top-level names (one per line, `#` comments) into a set. */
export function parseTopLevelIgnore(text: string): Set<string> {
  return new Set(
    text
      .split('\n')
      .map((line) => line.trim().replace(/^\/+|\/+$/g, ''))
      .filter((line) => line !== '' && !line.startsWith('#')),
  );
}

/** Regular files (and links) of the image under a directory, as git would have them tracked. */
function imageFiles(lowers: readonly string[], dir: string): string[] {
  const found = new Set<string>();
  const walk = (base: string, rel: string) => {
    let entries: import('node:fs').Dirent[];
    try {
      entries = readdirSync(join(base, rel), { withFileTypes: true });
    } catch {
      return;
    }
    for (const entry of entries) {
      const child = `${rel}/${entry.name}`;
      if (entry.isDirectory()) walk(base, child);
      else if (!entry.isCharacterDevice()) found.add(child);
    }
  };
  for (const lower of lowers) walk(lower, dir);
  return [...found].sort();
}

/**
 * What `git status --short` would print in upstream's container, computed from the sandbox's
 * change list against its image (where git had committed the whole image): untracked files (`??`),
 * an untracked directory once (`?? dir/`) when it holds a file, modified (`M`) and deleted (`D`)
 * tracked files. Paths are relative to `/` like git's; ignored top-level folders are left out.
 */
export function gitStatusChanges(
  changes: readonly FileChange[],
  ignored: ReadonlySet<string>,
  lowers: readonly string[],
): GitChange[] {
  const addedDirs = new Set(changes.filter((c) => c.kind === 'added' && c.type === 'dir').map((c) => c.path));
  const out = new Map<string, GitChange>();
  const add = (path: string, status: string) => {
    const key = `${status} ${path}`;
    if (!out.has(key)) out.set(key, { path, status });
  };
  for (const change of changes) {
    const parts = change.path.split('/').filter(Boolean);
    if (parts.length === 0 || ignored.has(parts[0]!)) continue;
    if (change.kind === 'added') {
      if (change.type === 'dir') continue;
      let top: string | undefined;
      for (let i = 1; i < parts.length; i += 1) {
        const ancestor = `/${parts.slice(0, i).join('/')}`;
        if (addedDirs.has(ancestor)) {
          top = ancestor;
          break;
        }
      }
      if (top) add(`${top.slice(1)}/`, '??');
      else add(parts.join('/'), '??');
    } else if (change.kind === 'modified') {
      add(parts.join('/'), 'M');
    } else if (change.type === 'dir') {
      for (const file of imageFiles(lowers, change.path)) add(file.slice(1), 'D');
    } else {
      add(parts.join('/'), 'D');
    }
  }
  return [...out.values()].sort((a, b) => (a.path < b.path ? -1 : a.path > b.path ? 1 : 0));
}
