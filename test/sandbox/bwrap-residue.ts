import { existsSync, readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { runtimeDir } from '../../src/core/host/runtime-dir.js';
import { detectCgroups } from '../../src/sandbox/cgroups.js';
import { processesWithEnv } from '../../src/testkit/host-processes.js';
import type { HostResidue } from '../../src/testkit/index.js';

function cgroupBases(): string[] {
  const support = detectCgroups();
  if (support.version === 1) return Object.values(support.bases);
  if (support.version === 2) return [support.base];
  return [];
}

function listDirs(path: string): string[] {
  try {
    return readdirSync(path, { withFileTypes: true })
      .filter((entry) => entry.isDirectory())
      .map((entry) => entry.name);
  } catch {
    return [];
  }
}

function cgroupProcesses(dir: string): number[] {
  try {
    return readFileSync(join(dir, 'cgroup.procs'), 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map(Number);
  } catch {
    return [];
  }
}

/** Processes whose mount table shows one of `paths`: they keep a sandbox's mounts alive. */
function processesWithMounts(paths: readonly string[]): HostResidue[] {
  const found: HostResidue[] = [];
  for (const pid of readdirSync('/proc').filter((name) => /^\d+$/.test(name))) {
    let mountinfo: string;
    try {
      mountinfo = readFileSync(`/proc/${pid}/mountinfo`, 'utf8');
    } catch {
      continue;
    }
    const held = mountinfo
      .split('\n')
      .map((line) => line.split(' ')[4] ?? '')
      .filter((mountPoint) => paths.some((path) => mountPoint === path || mountPoint.startsWith(`${path}/`)));
    if (held.length > 0) found.push({ kind: 'mount', detail: `pid ${pid} sees ${held.join(', ')}` });
  }
  return found;
}

/**
 * What bwrap sandboxes of `owner` hold on this host: labelled processes, mounts (in any mount
 * namespace), cgroups and runtime directories. Only those of `sandboxIds` when given.
 */
export function bwrapResidue(owner: string, sandboxIds?: readonly string[]): HostResidue[] {
  const names = sandboxIds?.map((id) => `${owner}.${id}`);
  const ownsLabel = (label: string) =>
    names
      ? names.some((name) => label === name || label.startsWith(`${name}.`))
      : label.startsWith(`${owner}.`);
  const residue: HostResidue[] = [];

  for (const pid of processesWithEnv('INTERCODE_SANDBOX', ownsLabel)) {
    residue.push({ kind: 'process', detail: `pid ${pid} labelled for ${owner}` });
  }

  const base = join(runtimeDir(), owner);
  const dirs = sandboxIds ? sandboxIds.map((id) => join(base, id)) : [base];
  residue.push(...processesWithMounts(dirs));
  for (const dir of dirs) if (existsSync(dir)) residue.push({ kind: 'directory', detail: dir });

  for (const cgroupBase of cgroupBases()) {
    for (const name of listDirs(cgroupBase)) {
      if (!ownsLabel(name)) continue;
      const dir = join(cgroupBase, name);
      residue.push({ kind: 'cgroup', detail: dir });
      // A process can clear its environment (and so its label) but not leave its cgroup.
      for (const pid of cgroupProcesses(dir))
        residue.push({ kind: 'process', detail: `pid ${pid} in ${dir}` });
    }
  }
  return residue;
}
