import { execFileSync } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { SqlEngineError } from '../engine/sql-engine-error.js';
import { findProgram } from './server-binaries.js';
import { runningAsRoot, type ServiceAccount } from './service-account.js';

/** Default size cap of a server's store (data and temporary files): 4 GiB. */
export const DEFAULT_STORE_BYTES = 4 * 2 ** 30;
/** The smallest cap accepted (a fresh data directory and the server's own files fit well within). */
export const MIN_STORE_BYTES = 64 * 2 ** 20;

const UNITS: Record<string, number> = { '': 1, K: 2 ** 10, M: 2 ** 20, G: 2 ** 30, T: 2 ** 40 };

/** `512M`, `4G`, `1.5G`, `1073741824` (bytes), as bytes; throws `SQL_ENGINE_FAILED` on anything else. */
export function parseStoreSize(text: string, source = 'INTERCODE_DB_SIZE'): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*([KMGT]?)(?:i?B)?\s*$/i.exec(text);
  const unit = UNITS[match?.[2]?.toUpperCase() ?? ''];
  const bytes = match && unit ? Math.floor(Number(match[1]) * unit) : Number.NaN;
  if (!Number.isFinite(bytes) || bytes < MIN_STORE_BYTES) {
    throw new SqlEngineError(
      'SQL_ENGINE_FAILED',
      `${source}=${text}: expected a size of at least 64M, such as 512M or 4G`,
    );
  }
  return bytes;
}

/** The cap of a server's store: the option, else `INTERCODE_DB_SIZE`, else {@link DEFAULT_STORE_BYTES}. */
export function storeSizeBytes(option?: number): number {
  if (option !== undefined) return parseStoreSize(String(option), 'dataSizeBytes');
  const env = process.env.INTERCODE_DB_SIZE;
  return env ? parseStoreSize(env) : DEFAULT_STORE_BYTES;
}

/**
 * Run inside the server's new mount namespace, before the server: mounts a tmpfs on the store
 * folder, puts the cached data directory there as the lower layer of an overlay whose upper layer
 * is on that tmpfs (copy-on-write: a file is copied only when the server first writes it, so a
 * start costs no copy of the whole directory; without overlayfs, a full copy), hands it to the
 * server's account if the cache belongs to another, makes the temporary folder, and execs the rest
 * of the command. When the server names the folder of its databases (`-` otherwise), that folder
 * gets an overlay of its own whose upper layer is on a tmpfs with the cap, and the store's tmpfs has
 * a fixed size for the rest (a server that cannot write its log or control files stops, so a full
 * database folder must not reach them); else the store's tmpfs has the cap.
 * Arguments: cap, uid, gid, store folder, template data directory, databases folder or `-`, size of
 * the store's tmpfs when split, the command.
 */
const STORE_SCRIPT = [
  'set -e',
  'uid=$2 gid=$3',
  'if [ "$6" = - ]; then size=$1; else size=$7; fi',
  'mount -t tmpfs -o "size=$size,mode=0700,uid=$2,gid=$3" intercode-db "$4"',
  // overlay LOWER TARGET SPACE: TARGET shows LOWER copy-on-write, what the server writes is in SPACE
  // (the merged folder takes the mode and owner of the upper layer). Few programs: each start costs.
  'overlay() {',
  '  install -d -m 0700 -o "$uid" -g "$gid" "$3/upper" "$3/work"',
  '  mount -t overlay -o "lowerdir=$1,upperdir=$3/upper,workdir=$3/work" intercode-data "$2"',
  '}',
  'install -d -m 0700 -o "$2" -g "$3" "$4/data" "$4/layer" "$4/tmp" "$4/space"',
  'if overlay "$5" "$4/data" "$4/layer" 2>/dev/null; then layered=1; else layered=0; cp -a "$5/." "$4/data/"; fi',
  '[ "$(stat -c %u:%g "$5")" = "$2:$3" ] || chown -R "$2:$3" "$4/data"',
  'if [ "$6" != - ] && [ $layered = 1 ]; then',
  '  mount -t tmpfs -o "size=$1,mode=0700,uid=$2,gid=$3" intercode-db-space "$4/space"',
  '  overlay "$5/$6" "$4/data/$6" "$4/space"',
  'elif [ "$6" != - ]; then',
  '  mv "$4/data/$6" "$4/seed"',
  '  mkdir -m 0700 "$4/data/$6"',
  '  mount -t tmpfs -o "size=$1,mode=0700,uid=$2,gid=$3" intercode-db-space "$4/data/$6"',
  '  cp -a "$4/seed/." "$4/data/$6/"',
  '  rm -rf "$4/seed"',
  'fi',
  'shift 7',
  'exec "$@"',
].join('\n');

function userNamespacesAllowed(): boolean {
  for (const [file, off] of [
    ['/proc/sys/user/max_user_namespaces', '0'],
    ['/proc/sys/kernel/unprivileged_userns_clone', '0'],
  ] as const) {
    try {
      if (readFileSync(file, 'utf8').trim() === off) return false;
    } catch {
      // The setting does not exist on this kernel: it does not forbid anything.
    }
  }
  return true;
}

let unshareChecked: string | false | undefined;

/** `unshare` (util-linux) when it can make the namespaces the store needs here, else false. */
function usableUnshare(): string | false {
  if (unshareChecked !== undefined) return unshareChecked;
  const unshare = findProgram(['/usr/bin/unshare', 'unshare']);
  if (!unshare || (!runningAsRoot() && !userNamespacesAllowed())) {
    unshareChecked = false;
    return false;
  }
  try {
    const probe = runningAsRoot()
      ? [unshare, '--mount', '--propagation', 'private', '--', '/bin/true']
      : [unshare, '--user', '--map-root-user', '--mount', '--propagation', 'private', '--', '/bin/true'];
    execFileSync(probe[0]!, probe.slice(1), { stdio: 'ignore', timeout: 5_000 });
    unshareChecked = unshare;
  } catch {
    unshareChecked = false;
  }
  return unshareChecked;
}

/** How a server's store is capped here: `tmpfs` (a private, size-limited tmpfs) or `none`. */
export function storeCapping(): 'tmpfs' | 'none' {
  return usableUnshare() ? 'tmpfs' : 'none';
}

/** Where a server keeps its data and temporary files, and the cap. */
export interface StoreLaunch {
  /** The store folder (a mount point made beforehand in the server's folder). */
  readonly store: string;
  /** The cached data directory shown (copy-on-write) or copied as `<store>/data`. */
  readonly template: string;
  readonly sizeBytes: number;
  /** The account the server runs as under root (undefined: this process's user). */
  readonly account: ServiceAccount | undefined;
  /**
   * The folder of the server's databases in its data directory, capped alone; the rest of the store
   * (logs, control files) then has a tmpfs of `restBytes`.
   */
  readonly split?: { readonly folder: string; readonly restBytes: number };
}

/**
 * The command prefix that starts a server on a capped store: a private mount namespace (as root) or
 * a user and mount namespace (otherwise, this user mapped to root inside), where a tmpfs of
 * `sizeBytes` is mounted on the store and filled from the template, then `command` runs. When not
 * root, `command` runs in a further user namespace as this user's own uid, so that a server that
 * refuses to run as root (PostgreSQL) starts. The mounts exist only in the server's namespace: they
 * vanish with it, and the host's memory holds at most `sizeBytes` of its files. Undefined when
 * namespaces are not available here (`storeCapping()` is `none`).
 */
export function cappedStoreCommand(launch: StoreLaunch, command: readonly string[]): string[] | undefined {
  const unshare = usableUnshare();
  if (!unshare) return undefined;
  // The store script's arguments: the tmpfs size, the owner of the store, its folders.
  const script = (uid: string, gid: string) => [
    '--',
    '/bin/sh',
    '-c',
    STORE_SCRIPT,
    'intercode-store',
    String(launch.sizeBytes),
    uid,
    gid,
    launch.store,
    launch.template,
    launch.split?.folder ?? '-',
    String(launch.split?.restBytes ?? 0),
  ];
  if (runningAsRoot()) {
    const uid = String(launch.account?.uid ?? 0);
    const gid = String(launch.account?.gid ?? 0);
    return [unshare, '--mount', '--propagation', 'private', ...script(uid, gid), ...command];
  }
  const uid = String(process.getuid?.() ?? 0);
  const gid = String(process.getgid?.() ?? 0);
  return [
    unshare,
    '--user',
    '--map-root-user',
    '--mount',
    '--propagation',
    'private',
    ...script('0', '0'),
    unshare,
    `--map-user=${uid}`,
    `--map-group=${gid}`,
    '--',
    ...command,
  ];
}
