import { UPSTREAM_FILE_TABLE, UPSTREAM_MISSING } from './upstream-manifest.js';

/** An upstream file the manifest pins: where it is in the repository, its size and SHA-256. */
export interface UpstreamFile {
  readonly path: string;
  readonly size: number;
  readonly sha256: string;
}

let table: ReadonlyMap<string, UpstreamFile> | undefined;

function files(): ReadonlyMap<string, UpstreamFile> {
  if (!table) {
    const map = new Map<string, UpstreamFile>();
    for (const line of UPSTREAM_FILE_TABLE.split('\n')) {
      const match = /^([0-9a-f]{64}) (\d+) (.+)$/.exec(line);
      if (match) map.set(match[3]!, { path: match[3]!, size: Number(match[2]), sha256: match[1]! });
    }
    table = map;
  }
  return table;
}

/** The manifest entry of an upstream path, or undefined when the manifest does not pin it. */
export function upstreamFile(path: string): UpstreamFile | undefined {
  return files().get(path);
}

/** Every pinned upstream file whose path starts with `prefix`, sorted by path. */
export function upstreamFilesUnder(prefix: string): UpstreamFile[] {
  return [...files().values()].filter((file) => file.path.startsWith(prefix));
}

/** Why an upstream path (or a folder ending in /) is known to exist but is not pinned, if it is such a path. */
export function missingUpstreamReason(path: string): string | undefined {
  return UPSTREAM_MISSING.find((missing) =>
    missing.path.endsWith('/')
      ? path.startsWith(missing.path) || `${path}/` === missing.path
      : path === missing.path,
  )?.reason;
}

/** Why a dataset needing `paths` cannot load (some are not pinned), or undefined when all are pinned. */
export function unavailableReason(paths: readonly string[]): string | undefined {
  const missing = paths.filter((path) => !upstreamFile(path));
  if (missing.length === 0) return undefined;
  return missing
    .map((path) => `${path} is not available (${missingUpstreamReason(path) ?? 'not in the manifest'})`)
    .join('; ');
}
