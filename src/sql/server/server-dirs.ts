import { randomBytes } from 'node:crypto';
import {
  chmodSync,
  chownSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  rmSync,
  statfsSync,
} from 'node:fs';
import { join, resolve } from 'node:path';
import { currentOwner, isOwnerAlive } from '../../core/host/owner.js';
import { runtimeDir } from '../../core/host/runtime-dir.js';
import type { ServiceAccount } from './service-account.js';

/** Command names of the server processes intercode starts. */
const SERVER_COMMANDS = new Set(['mariadbd', 'mysqld', 'postgres', 'postmaster']);

/** `f_type` of tmpfs (linux/magic.h). */
const TMPFS_MAGIC = 0x01021994;

/** A folder made (or found) for this user only: a real directory, ours, with the given mode. */
function ownDir(path: string, mode: number): string | undefined {
  try {
    mkdirSync(path, { recursive: true, mode });
    const stat = lstatSync(path);
    if (!stat.isDirectory() || stat.uid !== process.getuid?.()) return undefined;
    chmodSync(path, mode);
    return path;
  } catch {
    return undefined;
  }
}

function onTmpfs(path: string): boolean {
  try {
    return statfsSync(path).type === TMPFS_MAGIC;
  } catch {
    return false;
  }
}

/**
 * Where the folders of database servers are (socket, the mount point of the capped store that holds
 * the data: see `capped-store.ts`; the data itself only when namespaces are not available):
 * `$INTERCODE_DB_DIR`, else `/dev/shm/intercode-db-<uid>` when /dev/shm is a tmpfs (the data is
 * disposable, and on this kind of machine a disk-backed folder made `CREATE DATABASE` 3 to 10
 * times slower: 40–230 ms against 13 ms), else
 * `<runtime dir>-db` (`/run/intercode-db` as root). Not inside the sandboxes' runtime directory:
 * that one is private to its user (0700) and a server running under a service account must reach
 * its own folder. As root the base and the owner folders are 0711 (enter, not list); each server's
 * folder is 0700 and belongs to the server's account.
 */
export function serverBaseDir(): string {
  const mode = process.getuid?.() === 0 ? 0o711 : 0o700;
  const override = process.env.INTERCODE_DB_DIR;
  if (override) {
    mkdirSync(override, { recursive: true, mode });
    return resolve(override);
  }
  if (onTmpfs('/dev/shm')) {
    const shared = ownDir(`/dev/shm/intercode-db-${process.getuid?.() ?? 'user'}`, mode);
    if (shared) return shared;
  }
  const base = `${resolve(runtimeDir())}-db`;
  mkdirSync(base, { recursive: true, mode });
  return base;
}

/** A new private folder for one server: `<base>/<owner>/<kind>-<random>`, owned by its account. */
export function newServerDir(kind: string, account: ServiceAccount | undefined): string {
  const base = serverBaseDir();
  const ownerDir = join(base, currentOwner());
  mkdirSync(ownerDir, { recursive: true, mode: process.getuid?.() === 0 ? 0o711 : 0o700 });
  const dir = join(ownerDir, `${kind}-${randomBytes(4).toString('hex')}`);
  mkdirSync(dir, { mode: 0o700 });
  if (account) chownSync(dir, account.uid, account.gid);
  return dir;
}

/** Makes `dir` (and its parents below `within`) exist, private to `account`. */
export function makePrivateDir(dir: string, account: ServiceAccount | undefined): string {
  mkdirSync(dir, { recursive: true, mode: 0o700 });
  chmodSync(dir, 0o700);
  if (account) chownSync(dir, account.uid, account.gid);
  return dir;
}

/** Removes a server folder, and the owner folder when it was the last one. */
export function removeServerDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
  const ownerDir = resolve(dir, '..');
  try {
    if (readdirSync(ownerDir).length === 0) rmSync(ownerDir, { recursive: true, force: true });
  } catch {
    // Already gone, or another server still uses it.
  }
}

function readProc(pid: string, file: string): string {
  try {
    return readFileSync(`/proc/${pid}/${file}`, 'latin1');
  } catch {
    return '';
  }
}

/** The owner label in a path below the base (`<base>/<owner>/…`), if any. */
function ownerIn(text: string, prefix: string): string | undefined {
  const at = text.indexOf(prefix);
  if (at < 0) return undefined;
  return text.slice(at + prefix.length).split('/')[0] || undefined;
}

/**
 * Kills the servers of owners that no longer run and removes their folders. A server dies with its
 * owner through its parent-death signal; this catches the rest (an owner killed while its server was
 * still being set up, a server started by hand from a leftover folder). Servers are process-group
 * leaders, so the whole group goes (PostgreSQL's backends too). Returns the number of servers killed
 * and folders removed.
 */
export function reapStaleServers(): { killed: number; removed: number } {
  const base = serverBaseDir();
  const prefix = `${base}/`;
  let killed = 0;
  for (const pid of readdirSync('/proc')) {
    if (!/^\d+$/.test(pid)) continue;
    if (!SERVER_COMMANDS.has(readProc(pid, 'comm').trim())) continue;
    const owner = readProc(pid, 'cmdline')
      .split('\0')
      .map((arg) => ownerIn(arg, prefix))
      .find((found) => found !== undefined);
    if (!owner || isOwnerAlive(owner)) continue;
    for (const target of [-Number(pid), Number(pid)]) {
      try {
        process.kill(target, 'SIGKILL');
      } catch {
        // Not a group leader, or already gone.
      }
    }
    killed += 1;
  }
  let removed = 0;
  for (const name of readdirSync(base)) {
    if (isOwnerAlive(name)) continue;
    rmSync(join(base, name), { recursive: true, force: true });
    removed += 1;
  }
  return { killed, removed };
}
