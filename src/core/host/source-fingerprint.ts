import { createHash } from 'node:crypto';
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';

const fingerprints = new Map<string, string>();

/**
 * A hash of the code in `dir` (its `.js`/`.ts` modules, below it too when `recursive`), computed
 * once per process: cached results keyed by it are never read by changed code.
 */
export function sourceFingerprint(dir: string, recursive = false): string {
  const id = `${recursive ? 'r' : 'f'}:${dir}`;
  let fingerprint = fingerprints.get(id);
  if (fingerprint === undefined) {
    const hash = createHash('sha256');
    const walk = (folder: string, prefix: string) => {
      const entries = readdirSync(folder, { withFileTypes: true }).sort((a, b) =>
        a.name < b.name ? -1 : a.name > b.name ? 1 : 0,
      );
      for (const entry of entries) {
        const path = join(folder, entry.name);
        if (entry.isDirectory()) {
          if (recursive) walk(path, `${prefix}${entry.name}/`);
        } else if (/\.(js|ts)$/.test(entry.name) && !entry.name.endsWith('.d.ts')) {
          hash.update(`${prefix}${entry.name}`).update(readFileSync(path));
        }
      }
    };
    walk(dir, '');
    fingerprint = hash.digest('hex').slice(0, 16);
    fingerprints.set(id, fingerprint);
  }
  return fingerprint;
}
