import { execFile } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { mkdirSync, readdirSync, readFileSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { promisify } from 'node:util';

const run = promisify(execFile);

/**
 * Files at least this large are listed and checked at each lookup. A PostgreSQL entry has thousands
 * of small catalogue files: a manifest of all of them took longer to parse and check than the rest
 * of a start.
 */
const CHECKED_BYTES = 64 * 1024;

/** The file of an entry that describes it; written last, so an entry without a valid one is never used. */
const MANIFEST = 'manifest.json';
/** Bump when the layout of an entry or its manifest changes. */
const ENTRY_FORMAT = 1;

/** What an entry's manifest records: its key, and the large files of its data directory with their size. */
interface Manifest {
  readonly format: number;
  readonly key: string;
  /** `[path relative to data/, size in bytes]` of each file of at least {@link CHECKED_BYTES}, sorted by path. */
  readonly files: readonly (readonly [string, number])[];
  /** SHA-256 of the rest of the manifest. */
  readonly sha256: string;
}

/** A usable entry (`dataDir` is its data directory), or why there is none. */
export type DataDirLookup = { readonly dataDir: string } | { readonly miss: string };

/** `<root>/<name>`, the name made safe for a path. */
export function entryPath(root: string, name: string): string {
  return join(root, name.replace(/[^A-Za-z0-9._-]+/g, '_'));
}

function manifestSum(format: number, key: string, files: Manifest['files']): string {
  return createHash('sha256')
    .update(JSON.stringify([format, key, files]))
    .digest('hex');
}

/** The files of at least {@link CHECKED_BYTES} below `dir`, with their size, sorted by path. */
function listFiles(dir: string): [string, number][] {
  const files: [string, number][] = [];
  const walk = (folder: string) => {
    for (const entry of readdirSync(folder, { withFileTypes: true })) {
      const path = join(folder, entry.name);
      if (entry.isDirectory()) walk(path);
      else if (entry.isFile()) {
        const size = statSync(path).size;
        if (size >= CHECKED_BYTES) files.push([relative(dir, path), size]);
      }
    }
  };
  walk(dir);
  return files.sort((a, b) => (a[0] < b[0] ? -1 : a[0] > b[0] ? 1 : 0));
}

/**
 * Looks up the entry `<root>/<name>` and checks it: a manifest whose checksum holds, the same
 * format and key, and each (large) file it lists there with its size. A torn copy is never found (entries are renamed into place whole); a
 * truncated or removed large file is refused; a change of content at the same size is not detected.
 */
export function lookUpDataDir(root: string, name: string, key: string): DataDirLookup {
  const entry = entryPath(root, name);
  let manifest: Manifest;
  try {
    manifest = JSON.parse(readFileSync(join(entry, MANIFEST), 'utf8')) as Manifest;
  } catch (error) {
    const code = (error as NodeJS.ErrnoException).code;
    return { miss: code === 'ENOENT' ? 'no entry' : `unreadable manifest (${code ?? 'not JSON'})` };
  }
  if (manifest.format !== ENTRY_FORMAT || manifest.key !== key) return { miss: 'entry of another key' };
  if (
    !Array.isArray(manifest.files) ||
    manifest.sha256 !== manifestSum(manifest.format, manifest.key, manifest.files)
  ) {
    return { miss: 'manifest checksum mismatch' };
  }
  const dataDir = join(entry, 'data');
  for (const [file, size] of manifest.files) {
    try {
      const stat = statSync(join(dataDir, file), { throwIfNoEntry: false });
      if (!stat) return { miss: `file ${file} missing` };
      if (stat.size !== size) return { miss: `file ${file} has ${stat.size} bytes, not ${size}` };
    } catch {
      return { miss: `file ${file} unreadable` };
    }
  }
  return { dataDir };
}

/** Staging and set-aside folders older than this were left by a process that died while publishing. */
const LEFTOVER_MS = 60 * 60 * 1000;

/** Removes the staging and set-aside folders of `root` that processes which died left behind. */
function removeLeftovers(root: string): void {
  for (const name of readdirSync(root)) {
    if (!/\.(tmp|old)-[0-9a-f]{8}$/.test(name)) continue;
    const path = join(root, name);
    try {
      if (Date.now() - statSync(path).mtimeMs > LEFTOVER_MS) rmSync(path, { recursive: true, force: true });
    } catch {
      // Gone already.
    }
  }
}

/**
 * Publishes the data directory `source` as the entry `<root>/<name>`: copied (owners kept) into a
 * staging folder next to it, its manifest written last, everything flushed to disk, then renamed
 * into place, so a reader sees a whole entry or none. When another process published the entry
 * meanwhile, that one is kept and this copy dropped; an entry that does not check (damaged) is
 * replaced. Returns the entry's data directory.
 */
export async function publishDataDir(
  root: string,
  name: string,
  key: string,
  source: string,
): Promise<string> {
  mkdirSync(root, { recursive: true });
  const entry = entryPath(root, name);
  removeLeftovers(root);
  const staging = `${entry}.tmp-${randomBytes(4).toString('hex')}`;
  try {
    mkdirSync(staging);
    await run('cp', ['-a', source, join(staging, 'data')]);
    const files = listFiles(join(staging, 'data'));
    const manifest: Manifest = {
      format: ENTRY_FORMAT,
      key,
      files,
      sha256: manifestSum(ENTRY_FORMAT, key, files),
    };
    writeFileSync(join(staging, MANIFEST), `${JSON.stringify(manifest)}\n`);
    // syncfs of the cache's file system: the entry's files are on disk before its name is.
    await run('sync', ['-f', staging]);
    for (let attempt = 0; ; attempt += 1) {
      try {
        renameSync(staging, entry);
        return join(entry, 'data');
      } catch (error) {
        const found = lookUpDataDir(root, name, key);
        if ('dataDir' in found) return found.dataDir;
        if (attempt > 0) throw error;
        // A damaged entry (or one of an older key) is in the way: move it aside, then retry.
        const aside = `${entry}.old-${randomBytes(4).toString('hex')}`;
        try {
          renameSync(entry, aside);
        } catch {
          // Another process moved it first.
        }
        rmSync(aside, { recursive: true, force: true });
      }
    }
  } finally {
    rmSync(staging, { recursive: true, force: true });
  }
}
