import { mkdirSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { isOwnerAlive } from './owner.js';

/** Where sandboxes keep their mount points: a per-user directory, private to the user. */
export function runtimeDir(): string {
  const base =
    process.env.INTERCODE_RUNTIME_DIR ??
    (process.getuid?.() === 0
      ? '/run/intercode'
      : process.env.XDG_RUNTIME_DIR
        ? join(process.env.XDG_RUNTIME_DIR, 'intercode')
        : join(tmpdir(), `intercode-${process.getuid?.() ?? 'user'}`));
  mkdirSync(base, { recursive: true, mode: 0o700 });
  return base;
}

/**
 * Removes the mount-point folders of owners that no longer run. Their mounts died with them, except
 * in sandboxes that were still starting when the owner was killed (see `killStaleSandboxes`).
 */
export function reapStaleRuntimeDirs(): number {
  const base = runtimeDir();
  killStaleSandboxes(base);
  let removed = 0;
  for (const name of readdirSync(base)) {
    if (isOwnerAlive(name)) continue;
    rmSync(join(base, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}

/** How a sandbox's outer process names it in its environment (see `BoxLaunch.label`). */
const SANDBOX_LABEL = 'INTERCODE_SANDBOX=';

/** The owner a sandbox process names in its label (`INTERCODE_SANDBOX=<owner>.<id>…`). */
function labelOwner(pid: string): string | undefined {
  const label = readProc(pid, 'environ')
    .split('\0')
    .find((entry) => entry.startsWith(SANDBOX_LABEL));
  return label?.slice(SANDBOX_LABEL.length).split('.')[0];
}

/** The owner whose runtime folder (under `prefix`) the process's arguments name (sandboxes of older versions). */
function folderOwner(pid: string, prefix: string): string | undefined {
  const path = readProc(pid, 'cmdline')
    .split('\0')
    .find((arg) => arg.startsWith(prefix));
  return path?.slice(prefix.length).split('/')[0];
}

function readProc(pid: string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'latin1');
  } catch {
    return '';
  }
}

/**
 * Kills sandboxes that outlived their owner. bubblewrap 0.8 arms `--die-with-parent` in a sandbox's
 * init only at the end of its setup, so a sandbox still starting when its owner is killed survives
 * it (blocked, or running its command outside any cgroup). Its `setpriv`/`nsenter`/`bwrap`
 * process names its owner in its environment (the sandbox's label, `INTERCODE_SANDBOX`, which starts
 * with the owner as the runtime directory's folders do; older ones named the owner's runtime
 * directory in their arguments); killing that init ends everything in its pid namespace.
 */
function killStaleSandboxes(base: string): void {
  const prefix = `${base}/`;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    const command = readProc(pid, 'comm').trim();
    if (command !== 'bwrap' && command !== 'nsenter' && command !== 'setpriv') continue;
    const owner = labelOwner(pid) ?? folderOwner(pid, prefix);
    if (!owner || isOwnerAlive(owner)) continue;
    try {
      process.kill(Number(pid), 'SIGKILL');
    } catch {
      // Already gone.
    }
  }
}
