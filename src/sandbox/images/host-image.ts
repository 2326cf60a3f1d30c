import { createHash } from 'node:crypto';
import {
  cpSync,
  existsSync,
  lstatSync,
  mkdirSync,
  readdirSync,
  renameSync,
  rmSync,
  statSync,
  symlinkSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { cacheDir } from '../../core/host/cache-dir.js';
import { buildLocaleFolder, builtLocaleFolder, localeFingerprint } from './locale-archive.js';

/** Host directories shown read-only in `host` image sandboxes. */
const SYSTEM_DIRS = ['usr', 'bin', 'sbin', 'lib', 'lib32', 'lib64', 'libx32'] as const;

/**
 * Entries of the host's /etc that programs need and that hold no secrets: the dynamic linker's
 * cache, alternatives links, tool configuration. Everything else in /etc is synthetic.
 */
const ETC_ALLOWED = [
  'alternatives',
  'ld.so.cache',
  'ld.so.conf',
  'ld.so.conf.d',
  'localtime',
  'timezone',
  'magic',
  'magic.mime',
  'mime.types',
  'debian_version',
  'os-release',
  'lsb-release',
  'protocols',
  'services',
  'inputrc',
  'papersize',
  'ImageMagick-6',
  'ImageMagick-7',
  'gdb',
  'perl',
  'python3',
  'fonts',
  'ssl',
];
const ETC_ALLOWED_PREFIXES = ['python3.', 'java-'];

const SYNTHETIC_ETC: Record<string, string> = {
  passwd: 'root:x:0:0:root:/root:/bin/bash\nnobody:x:65534:65534:nobody:/nonexistent:/usr/sbin/nologin\n',
  group: 'root:x:0:\nnogroup:x:65534:\n',
  hostname: 'sandbox\n',
  hosts: '127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n',
  'nsswitch.conf': 'passwd: files\ngroup: files\nshadow: files\nhosts: files dns\nnetworks: files\n',
  'resolv.conf': '',
  shells: '/bin/sh\n/bin/bash\n/usr/bin/bash\n',
};

/** The layout of the `host` image: one synthetic lower directory plus read-only binds of host dirs. */
export interface HostImage {
  readonly lower: string;
  /**
   * Host directories bound read-only at the same path, then the image's locale folder at
   * /usr/lib/locale when it has one (`locale-archive.ts`).
   */
  readonly binds: readonly (string | { readonly source: string; readonly target: string })[];
}

/** The binds of a host image built at `dir`: the system directories, then its locale folder. */
function imageBinds(dir: string, systemDirs: readonly string[]): HostImage['binds'] {
  const locale = builtLocaleFolder(dir);
  return locale === null ? systemDirs : [...systemDirs, { source: locale, target: '/usr/lib/locale' }];
}

function etcEntries(): string[] {
  let names: string[] = [];
  try {
    names = readdirSync('/etc');
  } catch {
    return [];
  }
  return names
    .filter(
      (name) => ETC_ALLOWED.includes(name) || ETC_ALLOWED_PREFIXES.some((prefix) => name.startsWith(prefix)),
    )
    .sort();
}

function fingerprint(entries: readonly string[]): string {
  const hash = createHash('sha256').update('host-image-v2\n');
  for (const dir of SYSTEM_DIRS) {
    const path = `/${dir}`;
    if (!existsSync(path)) continue;
    hash.update(`${dir}:${lstatSync(path).isSymbolicLink() ? 'link' : 'dir'}\n`);
  }
  for (const name of entries) {
    const stat = statSync(join('/etc', name), { throwIfNoEntry: false });
    hash.update(`${name}:${stat?.mtimeMs ?? 0}:${stat?.size ?? 0}\n`);
  }
  for (const [name, text] of Object.entries(SYNTHETIC_ETC)) hash.update(`${name}=${text}`);
  hash.update(`locale:${localeFingerprint()}\n`);
  return hash.digest('hex').slice(0, 16);
}

/**
 * Builds (once, cached by a fingerprint of what it copies) the `host` image: a minimal root with a
 * synthetic /etc and mount points for the host's system directories. No host secret and no host
 * home is in it.
 */
export function prepareHostImage(): HostImage {
  const entries = etcEntries();
  const dir = join(cacheDir(), 'images', `host-${fingerprint(entries)}`);
  const binds = SYSTEM_DIRS.filter((name) => {
    const path = `/${name}`;
    return existsSync(path) && !lstatSync(path).isSymbolicLink();
  }).map((name) => `/${name}`);
  if (existsSync(join(dir, 'complete'))) return { lower: join(dir, 'root'), binds: imageBinds(dir, binds) };

  const building = `${dir}.tmp-${process.pid}`;
  const staging = join(building, 'root');
  rmSync(building, { recursive: true, force: true });
  mkdirSync(staging, { recursive: true, mode: 0o755 });
  for (const name of [
    'etc',
    'root',
    'home',
    'run',
    'mnt',
    'opt',
    'srv',
    'var',
    'var/tmp',
    'var/log',
    'proc',
    'dev',
    'sys',
  ]) {
    mkdirSync(join(staging, name), { recursive: true, mode: 0o755 });
  }
  mkdirSync(join(staging, 'tmp'), { mode: 0o1777 });
  for (const name of SYSTEM_DIRS) {
    const path = `/${name}`;
    if (!existsSync(path)) continue;
    const stat = lstatSync(path);
    if (stat.isSymbolicLink()) {
      // Merged-/usr systems: /bin -> usr/bin and so on.
      cpSync(path, join(staging, name), { verbatimSymlinks: true });
    } else {
      mkdirSync(join(staging, name), { mode: 0o755 });
    }
  }
  for (const name of entries) {
    try {
      cpSync(join('/etc', name), join(staging, 'etc', name), { recursive: true, verbatimSymlinks: true });
    } catch {
      // An unreadable entry is left out: the image must never fail to build over an optional file.
    }
  }
  for (const [name, text] of Object.entries(SYNTHETIC_ETC)) {
    writeFileSync(join(staging, 'etc', name), text, { mode: 0o644 });
  }
  if (!existsSync(join(staging, 'etc', 'mtab')))
    symlinkSync('/proc/self/mounts', join(staging, 'etc', 'mtab'));
  buildLocaleFolder(building);
  writeFileSync(join(building, 'complete'), '');
  try {
    renameSync(building, dir);
  } catch {
    // Another process built it first.
    rmSync(building, { recursive: true, force: true });
  }
  return { lower: join(dir, 'root'), binds: imageBinds(dir, binds) };
}
