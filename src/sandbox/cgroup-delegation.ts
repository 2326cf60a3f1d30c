import { accessSync, constants, readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The cgroup v2 controllers a sandbox's group needs. */
export const V2_CONTROLLERS = ['memory', 'pids', 'cpu'] as const;

/** What the delegation logic needs to know of one cgroup v2 directory. */
export interface CgroupDirState {
  /** This process may create groups in it (write access to the directory). */
  readonly writable: boolean;
  /** May move processes across its subtree (write access to its `cgroup.procs`). */
  readonly procsWritable: boolean;
  /** Its `cgroup.subtree_control` is writable by this process. */
  readonly subtreeWritable: boolean;
  /** Controllers it has (`cgroup.controllers`). */
  readonly controllers: readonly string[];
  /** Controllers enabled for its children (`cgroup.subtree_control`). */
  readonly subtreeControl: readonly string[];
}

/** Where to make the sandboxes' groups: below `dir`, after enabling the controllers there if `enable`. */
export type DelegatedBase =
  | { readonly dir: string; readonly enable: boolean }
  | { readonly dir: null; readonly reason: string };

/**
 * The cgroup v2 path of this process from `/proc/self/cgroup` (its `0::` line), or null on a
 * machine without the unified hierarchy.
 */
export function ownV2Path(procSelfCgroup: string): string | null {
  const line = procSelfCgroup.split('\n').find((entry) => entry.startsWith('0::'));
  return line === undefined ? null : line.slice(3) || '/';
}

/**
 * Chooses a subtree delegated to this user (e.g. systemd's `/user.slice/user-1000.slice/user@1000.service`)
 * in which the sandboxes' groups can be made: the shallowest *strict* ancestor of this process's own
 * cgroup (below the root) that this process may write, with memory, pids and cpu available and
 * enabled for its children (or enable-able: writable `cgroup.subtree_control`). Strict, because a
 * group that holds processes (ours) cannot enable controllers for children ("no internal
 * processes"); an ancestor, because moving a process between groups needs write access to their
 * common ancestor's `cgroup.procs`. `state` reads a directory (null when it does not exist).
 */
export function chooseDelegatedBase(
  ownPath: string,
  state: (path: string) => CgroupDirState | null,
): DelegatedBase {
  const parts = ownPath.split('/').filter(Boolean);
  const ancestors = parts.slice(0, -1).map((_, index) => `/${parts.slice(0, index + 1).join('/')}`);
  const seen: string[] = [];
  for (const path of ancestors) {
    const dir = state(path);
    if (!dir?.writable) continue;
    const missing = V2_CONTROLLERS.filter((controller) => !dir.controllers.includes(controller));
    if (missing.length > 0) {
      seen.push(`${path} lacks ${missing.join(', ')}`);
      continue;
    }
    if (!dir.procsWritable) {
      seen.push(`${path}/cgroup.procs is not writable`);
      continue;
    }
    const enabled = V2_CONTROLLERS.every((controller) => dir.subtreeControl.includes(controller));
    if (enabled) return { dir: path, enable: false };
    if (dir.subtreeWritable) return { dir: path, enable: true };
    seen.push(`${path} does not enable ${V2_CONTROLLERS.join(', ')} for its children`);
  }
  return {
    dir: null,
    reason:
      seen.length > 0
        ? `no usable delegated cgroup v2 subtree (${seen.join('; ')})`
        : `no cgroup v2 subtree above ${ownPath} is delegated to this user`,
  };
}

function canAccess(path: string, mode: number): boolean {
  try {
    accessSync(path, mode);
    return true;
  } catch {
    return false;
  }
}

function words(path: string): string[] {
  try {
    return readFileSync(path, 'utf8').split(/\s+/).filter(Boolean);
  } catch {
    return [];
  }
}

/** A directory of the real hierarchy mounted at `root`, as `chooseDelegatedBase` sees it. */
export function cgroupDirState(root: string, path: string): CgroupDirState | null {
  const dir = join(root, path);
  if (!canAccess(join(dir, 'cgroup.controllers'), constants.R_OK)) return null;
  return {
    writable: canAccess(dir, constants.W_OK),
    procsWritable: canAccess(join(dir, 'cgroup.procs'), constants.W_OK),
    subtreeWritable: canAccess(join(dir, 'cgroup.subtree_control'), constants.W_OK),
    controllers: words(join(dir, 'cgroup.controllers')),
    subtreeControl: words(join(dir, 'cgroup.subtree_control')),
  };
}
