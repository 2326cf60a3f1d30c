import { createHash } from 'node:crypto';
import {
  existsSync,
  lstatSync,
  lutimesSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmdirSync,
  rmSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from '../../core/errors.js';
import { cacheDir } from '../../core/host/cache-dir.js';
import { LAYER_AGE_MS } from '../../sandbox/deterministic-clock.js';
import { imageIdentity } from '../../sandbox/images/image-identity.js';
import type { SandboxProvider } from '../../sandbox/sandbox.js';

/** Bumped when the way layers are built changes, so old caches are not reused. */
const BUILDER_VERSION = 'script-layer-v1';

export interface ScriptLayerOptions {
  /** Short name for the cache folder (`nl2bash-fs1`). */
  readonly name: string;
  /** The setup script, run by bash as root at `/` in a fresh sandbox of `image`. */
  readonly script: string;
  readonly image: string;
  /**
   * Top-level folders whose empty directories are kept. Elsewhere, empty directories the script
   * created are removed, as `git clean -fd` removes them from upstream's containers on reset.
   */
  readonly keepEmptyUnder: ReadonlySet<string>;
  readonly timeoutMs?: number;
  /**
   * A deterministic layer for episodes whose clock starts at this instant (`SandboxSpec.deterministic`):
   * the script runs with its clock {@link LAYER_AGE_MS} earlier (the times it reads of the files it
   * wrote shifted alike, so an archive it makes stores that instant), and every time it set to "now"
   * (the files it wrote, the directories it changed) is pinned to that instant; times it set itself
   * (`touch -t`) are kept. Cached apart from the plain layer.
   */
  readonly pinnedClockMs?: number;
  /**
   * With `pinnedClockMs`: whether the build's clock is pinned (the image has libfaketime; filled by
   * `scriptLayer` from its provider). Without it the script reads the real time, which stays in what
   * it writes (an archive's member times), so such a layer is cached apart and rebuilt once the
   * image can pin the clock.
   */
  readonly clockPinned?: boolean;
}

const inFlight = new Map<string, Promise<string>>();

/**
 * Builds a file-system layer by running a setup script in a sandbox and keeping what it changed,
 * cached by the hash of the script and the image: rebuilt only when either changes.
 * Returns the layer directory, to be used in `SandboxSpec.layers`.
 */
export function scriptLayer(provider: SandboxProvider, given: ScriptLayerOptions): Promise<string> {
  const options =
    given.pinnedClockMs === undefined || given.clockPinned !== undefined
      ? given
      : { ...given, clockPinned: (provider.clockLibrary?.(given.image) ?? null) !== null };
  const { base, layer, built } = scriptLayerStatus(options);
  if (built) return Promise.resolve(layer);
  let pending = inFlight.get(base);
  if (!pending) {
    pending = build(provider, options, base).finally(() => inFlight.delete(base));
    inFlight.set(base, pending);
  }
  return pending;
}

/**
 * Where the layer of `options` is cached and whether it is built (nothing is built). The key covers
 * the script, the kept folders and the image's identity (for `debian` images, their package list).
 */
export function scriptLayerStatus(options: ScriptLayerOptions): {
  readonly key: string;
  readonly base: string;
  readonly layer: string;
  readonly built: boolean;
} {
  const key = createHash('sha256')
    .update(
      `${BUILDER_VERSION}\n${imageIdentity(options.image)}\n${[...options.keepEmptyUnder].sort().join(',')}\n${clockKey(options)}\n${options.script}`,
    )
    .digest('hex')
    .slice(0, 16);
  const name = options.pinnedClockMs === undefined ? options.name : `${options.name}-pinned`;
  const base = join(cacheDir(), 'layers', `${name}-${key}`);
  return { key, base, layer: join(base, 'layer'), built: existsSync(join(base, 'complete')) };
}

/** The clock part of a layer's cache key: plain, or pinned at its instant (with the build's clock pinned or running). */
function clockKey(options: ScriptLayerOptions): string {
  if (options.pinnedClockMs === undefined) return 'unpinned';
  const clock =
    options.clockPinned === undefined ? '' : options.clockPinned ? ', clock pinned' : ', clock running';
  return `made at ${options.pinnedClockMs - LAYER_AGE_MS}${clock}`;
}

async function build(provider: SandboxProvider, options: ScriptLayerOptions, base: string): Promise<string> {
  const staging = `${base}.tmp-${process.pid}-${Date.now()}`;
  rmSync(staging, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true });
  const madeAtMs = options.pinnedClockMs === undefined ? undefined : options.pinnedClockMs - LAYER_AGE_MS;
  const sandbox = await provider.create({
    image: options.image,
    label: `build-${options.name}`,
    // Half a second past the instant, with file times shifted like the clock: a file the script wrote
    // shows as written at that instant to its later commands (`tar` stores 11:00:00, not today).
    ...(madeAtMs !== undefined ? { deterministic: { clockMs: madeAtMs + 500, shiftFileTimes: true } } : {}),
  });
  // Kernel file times have a 1 s margin below the start (coarse timestamps lag the clock a tick).
  const startedMs = Date.now() - 1000;
  try {
    const result = await sandbox.exec('bash -s', {
      stdin: options.script,
      cwd: '/',
      timeoutMs: options.timeoutMs ?? 600_000,
    });
    // Setup scripts keep going past failing lines (upstream has no `set -e`); the log says which.
    writeFileSync(join(staging, 'build.log'), `exit ${result.exitCode}\n${result.output}`);
    if (result.timedOut) {
      throw new SandboxError(
        'SANDBOX_START_FAILED',
        `setup script of ${options.name} did not finish in time`,
      );
    }
    // Whatever the script left running is stopped, so that the copy is of one state.
    const stopped = await sandbox.quiesce();
    try {
      await sandbox.snapshot(join(staging, 'layer'));
    } finally {
      await stopped.resume();
    }
  } finally {
    await sandbox.close();
  }
  removeCleanedDirectories(join(staging, 'layer'), options.keepEmptyUnder);
  if (madeAtMs !== undefined) pinFileTimes(join(staging, 'layer'), startedMs, madeAtMs);
  writeFileSync(join(staging, 'complete'), '');
  try {
    renameSync(staging, base);
  } catch {
    rmSync(staging, { recursive: true, force: true });
  }
  return join(base, 'layer');
}

/**
 * Sets every access or modification time of the layer that is at or after `sinceMs` (set by the
 * kernel while the script ran) to `atMs`; earlier ones were set by the script and are kept.
 */
function pinFileTimes(layer: string, sinceMs: number, atMs: number): void {
  const at = atMs / 1000;
  const visit = (path: string): void => {
    const stat = lstatSync(path);
    if (stat.isDirectory()) for (const entry of readdirSync(path)) visit(join(path, entry));
    const atime = stat.atimeMs >= sinceMs ? at : stat.atimeMs / 1000;
    const mtime = stat.mtimeMs >= sinceMs ? at : stat.mtimeMs / 1000;
    // Reading a directory may have moved its access time: it is always set back.
    if (stat.isDirectory() || atime !== stat.atimeMs / 1000 || mtime !== stat.mtimeMs / 1000)
      lutimesSync(path, atime, mtime);
  };
  visit(layer);
}

/** Removes directories that hold no file at any depth, outside the kept top-level folders. */
function removeCleanedDirectories(layer: string, keep: ReadonlySet<string>): void {
  const prune = (dir: string): boolean => {
    let empty = true;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const path = join(dir, entry.name);
      if (entry.isDirectory() && !lstatSync(path).isSymbolicLink()) {
        if (prune(path)) rmdirSync(path);
        else empty = false;
      } else {
        empty = false;
      }
    }
    return empty;
  };
  for (const entry of readdirSync(layer, { withFileTypes: true })) {
    if (!entry.isDirectory() || keep.has(entry.name)) continue;
    const path = join(layer, entry.name);
    if (prune(path)) rmdirSync(path);
  }
}
