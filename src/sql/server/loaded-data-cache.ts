import { createHash } from 'node:crypto';
import { join } from 'node:path';
import { lookUpDataDir, publishDataDir } from './data-dir-cache.js';
import type { ManagedServer } from './managed-server.js';
import { newServerDir, removeServerDir } from './server-dirs.js';
import type { ServiceAccount } from './service-account.js';

/** Where the data a server started with came from. */
export interface PreloadOutcome {
  /**
   * `cache`: a cached loaded data directory; `built`: loaded now by a builder server and cached;
   * `uncached`: loaded now but not cached (the cache could not be written); `none`: the builder
   * failed, the server started empty (the engine loads as without a cache).
   */
  readonly source: 'cache' | 'built' | 'uncached' | 'none';
  /** The cache entry (`<cache>/sql/servers/<kind>-loaded-<hash>`). */
  readonly entry: string;
  /** Why the cache was not used as it was (a miss, a damaged entry, a failed build or write). */
  readonly reason?: string;
}

/** Data a server of intercode's own starts with, loaded once and kept in the user cache. */
export interface Preload {
  /** What determines the loaded data besides the server (dump hash, loader code, settings). */
  readonly key: string;
  /** Loads the data into a fresh server of the same kind (then shut down cleanly and cached). */
  load(server: ManagedServer): Promise<void>;
  /** Told where the data came from (once per start). */
  report?(outcome: PreloadOutcome): void;
}

/** What `loadedDataDir` needs from the server's start. */
export interface LoadedDataSpec {
  /** `<cache>/sql/servers`. */
  readonly root: string;
  readonly kind: string;
  /** The server's part of the key: version, format of the initialisation, account. */
  readonly serverKey: string;
  readonly account: ServiceAccount | undefined;
  /** The initialised data directory: the fallback. */
  initial(): Promise<string>;
  readonly preload: Preload;
  /** Starts a `keepable` server of the same recipe on the initialised data directory. */
  startBuilder(): Promise<ManagedServer>;
}

/** A data directory to start from, and what to remove once the server started from it has ended. */
export interface LoadedData {
  readonly dataDir: string;
  readonly cleanup: () => void;
}

/**
 * The loaded data directory of `spec.preload` for this server: the cache entry
 * `<root>/<kind>-loaded-<hash of the key>` when it checks (`data-dir-cache.ts`), else one built now:
 * a builder server (plain folder, not capped) started on the initialised data directory, loaded,
 * shut down cleanly, its data directory published into the cache. Two processes that build the
 * same entry at once both succeed (the second rename keeps the first). When the cache cannot be
 * written, the built directory is used once (and removed when that server ends); when building fails, the initialised one (the caller
 * loads as without a cache). The reason goes to `preload.report`, never an error.
 */
export async function loadedDataDir(spec: LoadedDataSpec): Promise<LoadedData> {
  const key = `${spec.serverKey}|${spec.preload.key}`;
  const name = `${spec.kind}-loaded-${createHash('sha256').update(key).digest('hex').slice(0, 24)}`;
  const entry = join(spec.root, name);
  const report = (outcome: Omit<PreloadOutcome, 'entry'>) => spec.preload.report?.({ ...outcome, entry });
  const found = lookUpDataDir(spec.root, name, key);
  if ('dataDir' in found) {
    report({ source: 'cache' });
    return { dataDir: found.dataDir, cleanup: () => {} };
  }
  let work: string | undefined;
  try {
    work = newServerDir(`${spec.kind}-load`, spec.account);
    const built = join(work, 'data');
    const builder = await spec.startBuilder();
    try {
      await spec.preload.load(builder);
    } catch (error) {
      await builder.stop();
      throw error;
    }
    await builder.stopKeepingData(built);
    try {
      const dataDir = await publishDataDir(spec.root, name, key, built);
      report({ source: 'built', reason: found.miss });
      removeServerDir(work);
      return { dataDir, cleanup: () => {} };
    } catch (error) {
      report({ source: 'uncached', reason: `${found.miss}; cannot write the cache: ${reasonOf(error)}` });
      const folder = work;
      return { dataDir: built, cleanup: () => removeServerDir(folder) };
    }
  } catch (error) {
    if (work) removeServerDir(work);
    report({ source: 'none', reason: `${found.miss}; building failed: ${reasonOf(error)}` });
    return { dataDir: await spec.initial(), cleanup: () => {} };
  }
}

function reasonOf(error: unknown): string {
  return (error instanceof Error ? error.message : String(error)).split('\n')[0] ?? '';
}
