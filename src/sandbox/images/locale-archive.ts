import { spawnSync } from 'node:child_process';
import { cpSync, existsSync, lstatSync, mkdirSync, readdirSync, rmSync, statSync } from 'node:fs';
import { join } from 'node:path';

/** Where glibc looks for compiled locales and their archive. */
const LOCALE_DIR = '/usr/lib/locale';
/** The compiled C.UTF-8 locale of Debian's libc-bin (the sandboxes' `LANG`). */
const C_UTF8 = 'C.utf8';
/** A host locale folder larger than this is not copied (the image is then built without the archive). */
const MAX_COPY_BYTES = 64 * 2 ** 20;

/**
 * Why an archive: every sandbox runs with `LANG=C.UTF-8`, and a program that calls `setlocale`
 * (most of coreutils, grep, sort, awk, Python) loads that locale. From its folder, glibc opens,
 * maps and closes a file per category (a dozen of each, about 70 system calls: 0.3 ms per program
 * start here); from an archive that holds it, one mapping. The archive holds the same compiled
 * locale (`localedef --add-to-archive` of the folder), so programs behave the same.
 */

/** What the host's locale folder holds, for the host image's fingerprint. */
export function localeFingerprint(): string {
  try {
    return readdirSync(LOCALE_DIR)
      .sort()
      .map((name) => {
        const stat = lstatSync(join(LOCALE_DIR, name));
        return `${name}:${stat.mtimeMs}:${stat.size}`;
      })
      .join(',');
  } catch {
    return '';
  }
}

function treeBytes(path: string, limit: number): number {
  let total = 0;
  const stack = [path];
  while (stack.length > 0 && total <= limit) {
    const dir = stack.pop()!;
    for (const entry of readdirSync(dir, { withFileTypes: true })) {
      const child = join(dir, entry.name);
      if (entry.isDirectory()) stack.push(child);
      else if (entry.isFile()) total += statSync(child).size;
    }
  }
  return total;
}

function isLink(path: string): boolean {
  return lstatSync(path, { throwIfNoEntry: false })?.isSymbolicLink() === true;
}

/** Whether the locale archive at `archive` holds the locale `name`. */
function archiveHolds(archive: string, name: string): boolean {
  const listed = spawnSync('localedef', ['--list-archive', archive], { encoding: 'utf8', timeout: 10_000 });
  return listed.status === 0 && listed.stdout.split('\n').includes(name);
}

/**
 * Builds under `into` a copy of the host's locale folder (`hostFolder`: /usr/lib/locale but in tests)
 * whose archive also holds C.UTF-8, for the
 * `host` image to show at /usr/lib/locale; its path, or null when the host needs none (no C.UTF-8
 * folder, or an archive that holds it already) or it cannot be made (no `localedef`, a folder past
 * 64 MiB): sandboxes then load the locale from its folder, as before.
 */
export function buildLocaleFolder(into: string, hostFolder = LOCALE_DIR): string | null {
  const folder = join(hostFolder, C_UTF8);
  const archive = join(hostFolder, 'locale-archive');
  if (!existsSync(folder)) return null;
  // A link (the folder, or its archive) is left alone: copied as a link, localedef would write
  // through it into the host's own file.
  if (isLink(hostFolder) || isLink(archive)) return null;
  if (existsSync(archive) && archiveHolds(archive, C_UTF8)) return null;
  const prefix = join(into, 'locale');
  const copy = join(prefix, LOCALE_DIR);
  try {
    if (treeBytes(hostFolder, MAX_COPY_BYTES) > MAX_COPY_BYTES) return null;
    mkdirSync(copy, { recursive: true, mode: 0o755 });
    cpSync(hostFolder, copy, { recursive: true, verbatimSymlinks: true, preserveTimestamps: true });
    const added = spawnSync('localedef', ['--prefix', prefix, '--add-to-archive', folder], {
      stdio: 'ignore',
      timeout: 60_000,
    });
    if (added.status === 0 && existsSync(join(copy, 'locale-archive'))) return copy;
  } catch {
    // Unreadable or unwritable: the image goes without the archive.
  }
  rmSync(prefix, { recursive: true, force: true });
  return null;
}

/** Where {@link buildLocaleFolder} put the folder under a built image's directory, if it did. */
export function builtLocaleFolder(imageDir: string): string | null {
  const copy = join(imageDir, 'locale', LOCALE_DIR);
  return existsSync(join(copy, 'locale-archive')) ? copy : null;
}
