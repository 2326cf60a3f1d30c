import { createHash } from 'node:crypto';
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { writeFileAtomic } from '../core/host/atomic-write.js';
import { cacheDir } from '../core/host/cache-dir.js';

/**
 * Writes a file embedded in the package (a demo set's setup script) into the cache and returns its path:
 * `<cacheDir>/datasets/builtin/<sha256 prefix>/<name>`. The same content is written once.
 */
export function builtinFile(name: string, content: string): string {
  const digest = createHash('sha256').update(content).digest('hex').slice(0, 16);
  const path = join(cacheDir(), 'datasets', 'builtin', digest, name);
  if (!existsSync(path) || readFileSync(path, 'utf8') !== content) writeFileAtomic(path, content);
  return path;
}
