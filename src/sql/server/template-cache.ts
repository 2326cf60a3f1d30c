import { execFile } from 'node:child_process';
import { statSync } from 'node:fs';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { cacheDir } from '../../core/host/cache-dir.js';
import { lookUpDataDir, publishDataDir } from './data-dir-cache.js';
import { newServerDir, removeServerDir } from './server-dirs.js';
import type { ServiceAccount } from './service-account.js';

const run = promisify(execFile);

/** What a server kind needs to build its initialised data directory. */
export interface TemplateSpec {
  /** `mariadb` or `postgres`. */
  readonly kind: string;
  /** Server version and the format of the initialisation (changes make a new template). */
  readonly key: string;
  readonly account: ServiceAccount | undefined;
  /** Root of the user cache (default `cacheDir()`). */
  readonly cacheRoot?: string;
  /** Initialises a data directory at `dataDir` (which does not exist yet; its parent belongs to `account`). */
  build(dataDir: string): Promise<void>;
}

/**
 * The initialised data directory of a server version, built once and kept under the user cache
 * (`<cache>/sql/servers/<kind>-<version>/data`, see `data-dir-cache.ts`). It is built in a fresh
 * server folder (the server's account must be able to write there, which the user cache may not
 * allow), then published into the cache with owners kept and an atomic rename, so concurrent
 * builders never see half a template: the loser of the race discards its copy.
 */
export async function cachedTemplate(spec: TemplateSpec): Promise<string> {
  const root = join(spec.cacheRoot ?? cacheDir(), 'sql', 'servers');
  const name = `${spec.kind}-${spec.key}`;
  const found = lookUpDataDir(root, name, spec.key);
  if ('dataDir' in found) return found.dataDir;
  const work = newServerDir(`${spec.kind}-init`, spec.account);
  try {
    await spec.build(join(work, 'data'));
    return await publishDataDir(root, name, spec.key, join(work, 'data'));
  } finally {
    removeServerDir(work);
  }
}

/**
 * Copies a template data directory to `target` (owners kept, `cp -a`), then hands it to `account`
 * when the template belongs to someone else (a template built under another account id).
 */
export async function copyTemplate(
  template: string,
  target: string,
  account: ServiceAccount | undefined,
): Promise<void> {
  await run('cp', ['-a', template, target]);
  const uid = account?.uid ?? process.getuid?.();
  const gid = account?.gid ?? process.getgid?.();
  if (uid === undefined || gid === undefined) return;
  const stat = statSync(target);
  if (stat.uid !== uid || stat.gid !== gid) await run('chown', ['-R', `${uid}:${gid}`, target]);
}
