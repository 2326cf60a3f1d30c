import { mkdirSync } from 'node:fs';
import { homedir } from 'node:os';
import { join } from 'node:path';

/** The user cache directory of intercode (`$XDG_CACHE_HOME/intercode`, or `INTERCODE_CACHE_DIR`). */
export function cacheDir(): string {
  const dir =
    process.env.INTERCODE_CACHE_DIR ??
    join(process.env.XDG_CACHE_HOME ?? join(homedir(), '.cache'), 'intercode');
  mkdirSync(dir, { recursive: true });
  return dir;
}
