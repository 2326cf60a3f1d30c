import { chmodSync, existsSync, mkdirSync, renameSync, rmSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../core/host/cache-dir.js';

/** Where the wrappers are inside a deterministic sandbox; first on its `PATH`. */
export const CLOCKLESS_DIR = '/opt/intercode/clockless';

/**
 * Programs that hang or abort when libfaketime is preloaded: BIND's libraries read the clock in
 * their constructors, before libfaketime is ready ("Unexpected recursive calls to clock_gettime()").
 */
const CLOCKLESS_PROGRAMS = ['dig', 'host', 'nslookup', 'delv', 'nsupdate', 'mdig'] as const;

/** Bumped when the wrappers change. */
const VERSION = 'clockless-v1';

/**
 * The wrapper: runs the program of the same name found on `PATH` after this folder, without
 * libfaketime (with the real clock), or says it is not found as the shell would.
 */
const WRAPPER = `#!/bin/sh
# In deterministic sandboxes libfaketime pins the clock; this program hangs under it, so it runs with
# the real clock. The first program of this name on PATH outside this folder is run.
name=\${0##*/}
IFS=:
for dir in $PATH; do
  if [ "$dir" != ${CLOCKLESS_DIR} ] && [ -f "$dir/$name" ] && [ -x "$dir/$name" ]; then
    unset LD_PRELOAD FAKETIME IFS
    exec "$dir/$name" "$@"
  fi
done
echo "$name: command not found" >&2
exit 127
`;

/**
 * A read-only layer holding the wrappers of {@link CLOCKLESS_PROGRAMS} in {@link CLOCKLESS_DIR},
 * stacked under the other layers of a sandbox whose clock is pinned. Written once into the cache
 * (atomically: a complete folder renamed into place).
 */
export function clocklessLayer(): string {
  const base = join(cacheDir(), 'layers', VERSION);
  const layer = join(base, 'layer');
  if (existsSync(layer)) return layer;
  const staging = `${base}.tmp-${process.pid}-${Date.now()}`;
  const dir = join(staging, 'layer', CLOCKLESS_DIR);
  mkdirSync(dir, { recursive: true });
  for (const program of CLOCKLESS_PROGRAMS) {
    writeFileSync(join(dir, program), WRAPPER);
    chmodSync(join(dir, program), 0o755);
  }
  try {
    renameSync(staging, base);
  } catch {
    // Another process made it first.
    rmSync(staging, { recursive: true, force: true });
  }
  return layer;
}
