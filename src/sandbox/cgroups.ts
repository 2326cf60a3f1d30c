import {
  accessSync,
  constants,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmdirSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { cgroupDirState, chooseDelegatedBase, ownV2Path, V2_CONTROLLERS } from './cgroup-delegation.js';
import type { SandboxLimits } from './sandbox.js';

const ROOT = '/sys/fs/cgroup';
const V1_CONTROLLERS = ['memory', 'pids', 'cpu'] as const;
const GROUP = 'intercode';

/** How this machine lets us limit resources. */
export type CgroupSupport =
  | { readonly version: 1; readonly bases: Readonly<Record<(typeof V1_CONTROLLERS)[number], string>> }
  | { readonly version: 2; readonly base: string }
  | { readonly version: null; readonly reason: string };

/** Creates the folder if needed and checks that this process may create groups in it. */
function tryMkdir(path: string): boolean {
  try {
    mkdirSync(path, { recursive: true });
    accessSync(path, constants.W_OK);
    return true;
  } catch {
    return false;
  }
}

function write(path: string, value: string): void {
  writeFileSync(path, value);
}

let detected: CgroupSupport | undefined;

/**
 * Finds a writable cgroup hierarchy: v1 memory+pids+cpu (root), or v2 with those controllers, at its
 * root (root) or in a subtree delegated to this user.
 */
export function detectCgroups(): CgroupSupport {
  if (detected) return detected;
  detected = probe();
  return detected;
}

function probe(): CgroupSupport {
  if (existsSync(join(ROOT, 'cgroup.controllers'))) return probeV2();
  const bases = {} as Record<(typeof V1_CONTROLLERS)[number], string>;
  for (const controller of V1_CONTROLLERS) {
    const mount = join(ROOT, controller);
    if (!existsSync(join(mount, 'cgroup.procs'))) {
      return { version: null, reason: `cgroup v1 controller "${controller}" is not mounted` };
    }
    const base = join(mount, GROUP);
    if (!tryMkdir(base)) return { version: null, reason: `cannot create ${base} (not root?)` };
    bases[controller] = base;
  }
  return { version: 1, bases };
}

/**
 * cgroup v2: the root of the hierarchy when this process may write it (root), else a subtree
 * delegated to this user (`cgroup-delegation.ts`), with memory, pids and cpu enabled below it.
 */
function probeV2(): CgroupSupport {
  const enable = V2_CONTROLLERS.map((controller) => `+${controller}`).join(' ');
  let rootError = '';
  try {
    const available = readFileSync(join(ROOT, 'cgroup.controllers'), 'utf8');
    for (const controller of V2_CONTROLLERS) {
      if (!available.includes(controller)) {
        return { version: null, reason: `cgroup v2 controller "${controller}" is not available` };
      }
    }
    write(join(ROOT, 'cgroup.subtree_control'), enable);
    const base = join(ROOT, GROUP);
    if (!tryMkdir(base)) return { version: null, reason: `cannot create ${base}` };
    write(join(base, 'cgroup.subtree_control'), enable);
    return { version: 2, base };
  } catch (error) {
    rootError = (error as Error).message;
  }
  let own: string | null = null;
  try {
    own = ownV2Path(readFileSync('/proc/self/cgroup', 'utf8'));
  } catch {
    // No /proc: nothing to delegate from.
  }
  if (own === null) return { version: null, reason: `cgroup v2 is not writable: ${rootError}` };
  const choice = chooseDelegatedBase(own, (path) => cgroupDirState(ROOT, path));
  if (choice.dir === null) {
    return { version: null, reason: `cgroup v2 root is not writable (not root?) and ${choice.reason}` };
  }
  try {
    if (choice.enable) write(join(ROOT, choice.dir, 'cgroup.subtree_control'), enable);
    const base = join(ROOT, choice.dir, GROUP);
    if (!tryMkdir(base)) return { version: null, reason: `cannot create ${base}` };
    write(join(base, 'cgroup.subtree_control'), enable);
    return { version: 2, base };
  } catch (error) {
    return {
      version: null,
      reason: `delegated cgroup v2 subtree ${choice.dir} is not usable: ${(error as Error).message}`,
    };
  }
}

/** Directories of one cgroup in every hierarchy it spans. */
function groupDirs(support: CgroupSupport, name: string): string[] {
  if (support.version === 1) return V1_CONTROLLERS.map((controller) => join(support.bases[controller], name));
  if (support.version === 2) return [join(support.base, name)];
  return [];
}

function readPids(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** One sandbox's cgroup (in every controller it needs). */
export class Cgroup {
  readonly name: string;
  readonly #support: CgroupSupport;
  readonly #dirs: string[];

  private constructor(support: CgroupSupport, name: string) {
    this.#support = support;
    this.name = name;
    this.#dirs = groupDirs(support, name);
  }

  /** Creates the group with its limits; returns null when cgroups are not usable here. */
  static create(name: string, limits: SandboxLimits): Cgroup | null {
    const support = detectCgroups();
    if (support.version === null) return null;
    const group = new Cgroup(support, name);
    try {
      for (const dir of group.#dirs) mkdirSync(dir, { recursive: true });
    } catch (error) {
      // Not ours to write (another user's hierarchy): the caller degrades to rlimits, with a warning.
      const code = (error as NodeJS.ErrnoException).code;
      if (code === 'EACCES' || code === 'EPERM' || code === 'EROFS') {
        group.removeSync();
        return null;
      }
      throw error;
    }
    try {
      group.#applyLimits(limits);
    } catch (error) {
      group.removeSync();
      throw error;
    }
    return group;
  }

  #applyLimits(limits: SandboxLimits): void {
    const support = this.#support;
    const memory = String(limits.memoryBytes);
    if (support.version === 1) {
      const mem = join(support.bases.memory, this.name);
      write(join(mem, 'memory.limit_in_bytes'), memory);
      const memsw = join(mem, 'memory.memsw.limit_in_bytes');
      if (existsSync(memsw)) write(memsw, memory);
      write(join(support.bases.pids, this.name, 'pids.max'), String(limits.pids));
      if (limits.cpus > 0) {
        const cpu = join(support.bases.cpu, this.name);
        write(join(cpu, 'cpu.cfs_period_us'), '100000');
        write(join(cpu, 'cpu.cfs_quota_us'), String(Math.round(limits.cpus * 100_000)));
      }
    } else if (support.version === 2) {
      const dir = join(support.base, this.name);
      write(join(dir, 'memory.max'), memory);
      if (existsSync(join(dir, 'memory.swap.max'))) write(join(dir, 'memory.swap.max'), '0');
      write(join(dir, 'pids.max'), String(limits.pids));
      if (limits.cpus > 0) write(join(dir, 'cpu.max'), `${Math.round(limits.cpus * 100_000)} 100000`);
    }
  }

  /** Moves a process (and so everything it starts later) into the group. */
  addProcess(pid: number): void {
    for (const dir of this.#dirs) write(join(dir, 'cgroup.procs'), String(pid));
  }

  /** Processes currently in the group. */
  pids(): number[] {
    const dir = this.#dirs[this.#support.version === 1 ? 1 : 0];
    return dir ? readPids(dir) : [];
  }

  /** Kills every process in the group. */
  killAll(): void {
    killGroupDirs(this.#dirs);
  }

  /** Kills what is left and removes the group, waiting briefly for the processes to go. */
  async remove(): Promise<void> {
    for (let attempt = 0; attempt < 100; attempt += 1) {
      this.killAll();
      if (removeDirs(this.#dirs)) return;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
  }

  /** Best effort, synchronous: for process exit handlers. */
  removeSync(): void {
    this.killAll();
    removeDirs(this.#dirs);
  }
}

function killGroupDirs(dirs: readonly string[]): void {
  for (const dir of dirs) {
    for (const pid of readPids(dir)) {
      try {
        process.kill(pid, 'SIGKILL');
      } catch {
        // Already gone.
      }
    }
  }
}

function removeDirs(dirs: readonly string[]): boolean {
  let all = true;
  for (const dir of dirs) {
    try {
      rmdirSync(dir);
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'ENOENT') all = false;
    }
  }
  return all;
}

/**
 * Removes the groups of owners that no longer run (a crashed or killed earlier process), killing
 * whatever they left behind. Group names start with the owner's pid and start time.
 */
export function reapStaleCgroups(isOwnerAlive: (owner: string) => boolean): number {
  const support = detectCgroups();
  const bases =
    support.version === 1 ? Object.values(support.bases) : support.version === 2 ? [support.base] : [];
  const stale = new Set<string>();
  for (const base of bases) {
    let names: string[] = [];
    try {
      names = readdirSync(base, { withFileTypes: true })
        .filter((entry) => entry.isDirectory())
        .map((entry) => entry.name);
    } catch {
      continue;
    }
    for (const name of names) {
      const owner = name.split('.')[0] ?? '';
      if (!isOwnerAlive(owner)) stale.add(name);
    }
  }
  for (const name of stale) {
    const dirs = groupDirs(support, name);
    for (let attempt = 0; attempt < 50; attempt += 1) {
      killGroupDirs(dirs);
      if (removeDirs(dirs)) break;
      Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, 10);
    }
  }
  return stale.size;
}
