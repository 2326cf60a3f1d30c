import { randomBytes } from 'node:crypto';
import { mkdirSync, renameSync, rmSync, statSync } from 'node:fs';
import { basename, dirname, join } from 'node:path';
import { DatasetError } from '../core/errors.js';
import { cacheDir } from '../core/host/cache-dir.js';
import { downloadVerified } from './download-verified.js';
import { sha256File } from './sha256-file.js';
import { missingUpstreamReason, type UpstreamFile, upstreamFile } from './upstream-files.js';
import { UPSTREAM_COMMIT } from './upstream-manifest.js';
import { sourceName, upstreamSource } from './upstream-source.js';

/** What `ensureUpstreamFile` did. */
export interface UpstreamFileResult {
  /** Local path of the verified file in the cache. */
  readonly localPath: string;
  readonly file: UpstreamFile;
  /** True when it was downloaded now, false when a verified copy was already cached. */
  readonly fetched: boolean;
  /** The source it came from, when fetched (`mirror <x>` or `upstream <commit>`). */
  readonly from?: string;
}

/** Cache paths whose SHA-256 was checked in this process (hashing is done once per process). */
const verified = new Set<string>();
const inFlight = new Map<string, Promise<UpstreamFileResult>>();

/** The folder of the cached upstream files of the pinned commit. */
export function upstreamCacheRoot(): string {
  return join(cacheDir(), 'datasets', UPSTREAM_COMMIT);
}

/** Where an upstream path is cached: `<cacheDir>/datasets/<commit>/<path>`. */
export function upstreamCachePath(path: string): string {
  return join(upstreamCacheRoot(), path);
}

function sizeOf(path: string): number | undefined {
  try {
    const stat = statSync(path);
    return stat.isFile() ? stat.size : undefined;
  } catch {
    return undefined;
  }
}

/** The manifest entry of `path`, or a one-line DatasetError saying why there is none. */
export function pinnedUpstreamFile(path: string): UpstreamFile {
  const file = upstreamFile(path);
  if (file) return file;
  const reason = missingUpstreamReason(path);
  if (reason)
    throw new DatasetError('DATASET_UNAVAILABLE', `upstream file ${path} is not available: ${reason}`);
  throw new DatasetError(
    'DATASET_UNAVAILABLE',
    `upstream file ${path} is not in the manifest of commit ${UPSTREAM_COMMIT.slice(0, 12)}`,
  );
}

/** True when `path` is in the cache with its pinned size (a cheap check: the hash is checked on use). */
export function isUpstreamFileCached(path: string): boolean {
  const file = upstreamFile(path);
  return file !== undefined && sizeOf(upstreamCachePath(path)) === file.size;
}

async function ensure(file: UpstreamFile, target: string): Promise<UpstreamFileResult> {
  const cachedSize = sizeOf(target);
  if (cachedSize === file.size) {
    if (verified.has(target) || (await sha256File(target)) === file.sha256) {
      verified.add(target);
      return { localPath: target, file, fetched: false };
    }
  }
  verified.delete(target);
  if (cachedSize !== undefined) rmSync(target, { force: true });

  const source = upstreamSource();
  const partialDir = join(cacheDir(), 'datasets', '.partial');
  mkdirSync(partialDir, { recursive: true });
  const temporary = join(partialDir, `${randomBytes(6).toString('hex')}-${basename(file.path)}`);
  try {
    await downloadVerified(file, source, temporary);
    mkdirSync(dirname(target), { recursive: true });
    renameSync(temporary, target);
  } finally {
    rmSync(temporary, { force: true });
  }
  verified.add(target);
  return { localPath: target, file, fetched: true, from: sourceName(source) };
}

/**
 * Makes sure one pinned upstream file is in the cache and verified, downloading it when it is missing
 * or does not match its SHA-256. A corrupt or partial download is never moved into the cache.
 */
export async function ensureUpstreamFile(path: string): Promise<UpstreamFileResult> {
  const file = pinnedUpstreamFile(path);
  const target = upstreamCachePath(path);
  if (verified.has(target) && sizeOf(target) === file.size)
    return { localPath: target, file, fetched: false };
  const running = inFlight.get(target);
  if (running) return running;
  const promise = ensure(file, target).finally(() => inFlight.delete(target));
  inFlight.set(target, promise);
  return promise;
}

/** The local, verified path of a pinned upstream file (see `ensureUpstreamFile`). */
export async function fetchUpstreamFile(path: string): Promise<string> {
  return (await ensureUpstreamFile(path)).localPath;
}
