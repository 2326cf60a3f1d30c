import { mkdirSync, readdirSync, rmSync } from 'node:fs';
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

/** Removes the mount-point folders of owners that no longer run. Their mounts died with them. */
export function reapStaleRuntimeDirs(): number {
  const base = runtimeDir();
  let removed = 0;
  for (const name of readdirSync(base)) {
    if (isOwnerAlive(name)) continue;
    rmSync(join(base, name), { recursive: true, force: true });
    removed += 1;
  }
  return removed;
}
