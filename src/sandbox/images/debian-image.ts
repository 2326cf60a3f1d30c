import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import {
  appendFileSync,
  existsSync,
  mkdirSync,
  readdirSync,
  readFileSync,
  renameSync,
  rmSync,
  statSync,
  writeFileSync,
} from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from '../../core/errors.js';
import { cacheDir } from '../../core/host/cache-dir.js';
import { hostAptSources, releaseSources } from './apt-sources.js';
import { imageProfiles, type RootProfile, rootProfile } from './image-profiles.js';
import { installedPackages } from './installed-packages.js';
import { removeTree } from './remove-tree.js';

/** The Debian release every image is built from. */
export const DEBIAN_SUITE = 'bookworm';

/** Bumped when the way images are built changes, so that every cached image is rebuilt. */
const BUILDER_VERSION = 'debian-image-v1';

/** Documentation and translations are left out of images (dpkg filters); copyright files stay. */
const DPKG_OPTIONS = [
  'path-exclude=/usr/share/man/*',
  'path-exclude=/usr/share/info/*',
  'path-exclude=/usr/share/doc/*',
  'path-exclude=/usr/share/locale/*',
  'path-include=/usr/share/doc/*/copyright',
];

/**
 * Run before packages are installed: dpkg skips the excluded man folders, but the maintainer scripts
 * of some packages (OpenJDK's update-alternatives) link man pages into them.
 */
const SETUP_HOOKS = ['mkdir -p "$1/usr/share/man/man1"'];

/** /etc files of the image replaced by synthetic ones: no host name, no name server, no password hashes. */
const SYNTHETIC_ETC: Record<string, string> = {
  hostname: 'sandbox\n',
  hosts: '127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n',
  'resolv.conf': '',
};
const REMOVED_ETC = ['shadow', 'shadow-', 'gshadow', 'gshadow-', 'passwd-', 'group-', 'machine-id'];

/** A built Debian image: the unpacked root (for bwrap) and the same root as a tar (for `docker import`). */
export interface DebianImage {
  readonly profile: string;
  readonly key: string;
  /** Directory of the unpacked root file system; used read-only. */
  readonly rootfs: string;
  /** Uncompressed tar of the same root. */
  readonly tarball: string;
  /** Installed packages and versions (`package version architecture` per line): the pin users can diff. */
  readonly manifest: string;
}

export interface DebianImageStatus extends DebianImage {
  readonly built: boolean;
  /** The image's folder in the cache. */
  readonly dir: string;
  /** Bytes of the unpacked root, when built. */
  readonly sizeBytes?: number;
  /** Bytes of the tar, when built. */
  readonly tarballBytes?: number;
}

export interface EnsureDebianImageOptions {
  /** mmdebstrap's progress, one line at a time. */
  readonly onProgress?: (line: string) => void;
  readonly signal?: AbortSignal;
}

/** Build facts kept next to the image (`image.json`). */
interface ImageRecord {
  readonly profile: string;
  readonly key: string;
  readonly suite: string;
  readonly architecture: string;
  readonly packages: readonly string[];
  readonly builtAt: string;
  readonly buildSeconds: number;
  readonly sizeBytes: number;
  readonly tarballBytes: number;
}

const ARCHITECTURES: Record<string, string> = {
  x64: 'amd64',
  arm64: 'arm64',
  arm: 'armhf',
  ia32: 'i386',
  ppc64: 'ppc64el',
  s390x: 's390x',
  riscv64: 'riscv64',
  loong64: 'loong64',
};

/** Debian's name of this machine's architecture. */
export function debianArchitecture(): string {
  return ARCHITECTURES[process.arch] ?? process.arch;
}

/** The cache key of a profile: a hash of its package list, the suite, the architecture and the builder. */
export function debianImageKey(profile: RootProfile, architecture = debianArchitecture()): string {
  const packages = [...new Set(profile.packages)].sort();
  const customize = profile.customize ?? [];
  return createHash('sha256')
    .update(
      `${BUILDER_VERSION}\n${DEBIAN_SUITE}\n${architecture}\n${DPKG_OPTIONS.join('\n')}\n${SETUP_HOOKS.join('\n')}\n${packages.join(' ')}\n`,
    )
    .update(customize.length > 0 ? `customize\n${customize.join('\n')}\n` : '')
    .digest('hex')
    .slice(0, 16);
}

function imagesDir(): string {
  return join(cacheDir(), 'images');
}

function layout(profile: RootProfile): DebianImage & { dir: string } {
  const key = debianImageKey(profile);
  const dir = join(imagesDir(), `debian-${profile.name}-${key}`);
  return {
    profile: profile.name,
    key,
    dir,
    rootfs: join(dir, 'rootfs'),
    tarball: join(dir, 'image.tar'),
    manifest: join(dir, 'manifest.txt'),
  };
}

/** Whether the image of a root profile is built, with its key and paths (nothing is built). */
export function debianImageStatus(profile: string): DebianImageStatus {
  const paths = layout(rootProfile(profile));
  const built = existsSync(join(paths.dir, 'complete'));
  if (!built) return { ...paths, built };
  let record: Partial<ImageRecord> = {};
  try {
    record = JSON.parse(readFileSync(join(paths.dir, 'image.json'), 'utf8')) as ImageRecord;
  } catch {
    record = {};
  }
  return {
    ...paths,
    built,
    ...(record.sizeBytes !== undefined ? { sizeBytes: record.sizeBytes } : {}),
    ...(record.tarballBytes !== undefined ? { tarballBytes: record.tarballBytes } : {}),
  };
}

/** The built image of a profile, or a one-line SandboxError naming the command that builds it. */
export function builtDebianImage(profile: string): DebianImage {
  const status = debianImageStatus(profile);
  if (!status.built) {
    throw new SandboxError(
      'SANDBOX_UNAVAILABLE',
      `image debian:${profile} is not built yet: run \`intercode image build ${profile}\` (about a minute)`,
    );
  }
  const { profile: name, key, rootfs, tarball, manifest } = status;
  return { profile: name, key, rootfs, tarball, manifest };
}

/** The mmdebstrap mirror arguments and the sources text to give on stdin (when any). */
function mirrorArguments(): { args: string[]; stdin?: string } {
  const mirror = process.env.INTERCODE_DEBIAN_MIRROR;
  if (mirror) return { args: [mirror] };
  const sources = releaseSources(DEBIAN_SUITE, hostAptSources());
  if (!sources) {
    throw new SandboxError(
      'SANDBOX_UNAVAILABLE',
      `the host's apt configuration (/etc/apt) has no source for Debian ${DEBIAN_SUITE}: ` +
        'set INTERCODE_DEBIAN_MIRROR to a Debian mirror URL',
    );
  }
  return { args: ['-'], stdin: sources };
}

function onPath(command: string): boolean {
  return (process.env.PATH ?? '/usr/sbin:/usr/bin:/sbin:/bin')
    .split(':')
    .some((dir) => dir !== '' && existsSync(join(dir, command)));
}

/** Whether mmdebstrap, the image builder, is installed. */
export function mmdebstrapAvailable(): boolean {
  return onPath('mmdebstrap');
}

const inFlight = new Map<string, Promise<DebianImage>>();

/**
 * The image of a root profile, built first when it is not cached (about a minute for `bash`).
 * Building is atomic: into a temporary folder renamed into place when complete, so a half-built
 * image is never used; concurrent callers in this process share one build.
 */
export function ensureDebianImage(
  profile: string,
  options: EnsureDebianImageOptions = {},
): Promise<DebianImage> {
  let root: RootProfile;
  try {
    root = rootProfile(profile);
  } catch (error) {
    return Promise.reject(error);
  }
  const paths = layout(root);
  if (existsSync(join(paths.dir, 'complete'))) return Promise.resolve(builtDebianImage(root.name));
  let pending = inFlight.get(paths.dir);
  if (!pending) {
    pending = build(root, paths, options).finally(() => inFlight.delete(paths.dir));
    inFlight.set(paths.dir, pending);
  }
  return pending;
}

async function build(
  profile: RootProfile,
  paths: DebianImage & { dir: string },
  options: EnsureDebianImageOptions,
): Promise<DebianImage> {
  if (!mmdebstrapAvailable()) {
    throw new SandboxError(
      'SANDBOX_UNAVAILABLE',
      'mmdebstrap is not installed (it builds the Debian images): apt-get install -y mmdebstrap',
    );
  }
  options.signal?.throwIfAborted();
  const mirror = mirrorArguments();
  const started = performance.now();
  mkdirSync(imagesDir(), { recursive: true });
  const staging = `${paths.dir}.tmp-${process.pid}-${Date.now()}`;
  const log = `${staging}.log`;
  mkdirSync(staging, { recursive: true });
  writeFileSync(log, '');
  try {
    const rootfs = join(staging, 'rootfs');
    const packages = [...new Set(profile.packages)].sort();
    writeFileSync(join(staging, 'packages.txt'), `${packages.join('\n')}\n`);
    if (mirror.stdin) writeFileSync(join(staging, 'sources'), mirror.stdin);
    await run(
      'mmdebstrap',
      [
        '--variant=minbase',
        `--architectures=${debianArchitecture()}`,
        `--include=${packages.join(',')}`,
        ...DPKG_OPTIONS.map((option) => `--dpkgopt=${option}`),
        '--aptopt=APT::Install-Recommends "false"',
        ...SETUP_HOOKS.map((hook) => `--setup-hook=${hook}`),
        ...(profile.customize ?? []).map((hook) => `--customize-hook=${hook}`),
        DEBIAN_SUITE,
        rootfs,
        ...mirror.args,
      ],
      { log, ...(mirror.stdin ? { stdin: mirror.stdin } : {}), ...options },
    );
    finishEtc(rootfs);
    const manifest = installedPackages(rootfs)
      .map((item) => `${item.name} ${item.version} ${item.architecture}`)
      .join('\n');
    writeFileSync(join(staging, 'manifest.txt'), `${manifest}\n`);
    options.onProgress?.(`writing ${paths.tarball}`);
    await run(
      'tar',
      ['--numeric-owner', '--sort=name', '-C', rootfs, '-cf', join(staging, 'image.tar'), '.'],
      {
        log,
        ...options,
      },
    );
    const record: ImageRecord = {
      profile: profile.name,
      key: paths.key,
      suite: DEBIAN_SUITE,
      architecture: debianArchitecture(),
      packages,
      builtAt: new Date().toISOString(),
      buildSeconds: Math.round((performance.now() - started) / 100) / 10,
      sizeBytes: diskUsage(rootfs),
      tarballBytes: statSync(join(staging, 'image.tar')).size,
    };
    writeFileSync(join(staging, 'image.json'), `${JSON.stringify(record, null, 2)}\n`);
    renameSync(log, join(staging, 'build.log'));
    writeFileSync(join(staging, 'complete'), '');
  } catch (error) {
    removeTree(staging);
    // The log of the failed build stays for the user to read (the error names it).
    if (existsSync(log)) renameSync(log, `${paths.dir}.failed.log`);
    throw error;
  }
  try {
    renameSync(staging, paths.dir);
  } catch {
    // Another process finished the same image first; its copy is identical in content.
    removeTree(staging);
  }
  return builtDebianImage(profile.name);
}

/** Synthetic /etc entries: the sandbox's host name, loopback hosts, no name server, no password hashes. */
function finishEtc(rootfs: string): void {
  const etc = join(rootfs, 'etc');
  for (const name of REMOVED_ETC) rmSync(join(etc, name), { force: true });
  for (const [name, text] of Object.entries(SYNTHETIC_ETC)) {
    rmSync(join(etc, name), { force: true });
    writeFileSync(join(etc, name), text, { mode: 0o644 });
  }
  // Lists of the build's apt sources are not needed to run anything.
  const lists = join(rootfs, 'var', 'lib', 'apt', 'lists');
  if (existsSync(lists)) {
    for (const name of readdirSync(lists)) {
      if (name !== 'partial' && name !== 'lock') rmSync(join(lists, name), { recursive: true, force: true });
    }
  }
}

function diskUsage(path: string): number {
  const result = spawnSync('du', ['-sb', path], { encoding: 'utf8' });
  return Number.parseInt(result.stdout?.split('\t')[0] ?? '', 10) || 0;
}

interface RunOptions extends EnsureDebianImageOptions {
  readonly log: string;
  readonly stdin?: string;
}

/** Runs a build step in its own process group, its stderr as progress, killed on abort. */
function run(command: string, args: readonly string[], options: RunOptions): Promise<void> {
  return new Promise((resolve, reject) => {
    appendFileSync(options.log, `$ ${command} ${args.join(' ')}\n`);
    const child: ChildProcess = spawn(command, args, {
      stdio: ['pipe', 'pipe', 'pipe'],
      detached: true,
      env: { ...process.env, LC_ALL: 'C.UTF-8', DEBIAN_FRONTEND: 'noninteractive' },
    });
    let tail = '';
    let pending = '';
    const onData = (chunk: Buffer) => {
      const text = chunk.toString('utf8');
      appendFileSync(options.log, text);
      tail = (tail + text).slice(-4000);
      pending += text;
      const lines = pending.split(/\r?\n|\r/);
      pending = lines.pop() ?? '';
      for (const line of lines) if (line.trim() !== '') options.onProgress?.(line);
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    const abort = () => {
      try {
        if (child.pid) process.kill(-child.pid, 'SIGTERM');
      } catch {
        // Already gone.
      }
      setTimeout(() => {
        try {
          if (child.pid) process.kill(-child.pid, 'SIGKILL');
        } catch {
          // Already gone.
        }
      }, 10_000).unref();
    };
    options.signal?.addEventListener('abort', abort, { once: true });
    child.on('error', (error) => {
      options.signal?.removeEventListener('abort', abort);
      reject(
        new SandboxError('SANDBOX_UNAVAILABLE', `cannot run ${command}: ${error.message}`, { cause: error }),
      );
    });
    child.on('close', (code, signal) => {
      options.signal?.removeEventListener('abort', abort);
      if (options.signal?.aborted) {
        reject(new SandboxError('SANDBOX_START_FAILED', 'image build interrupted'));
      } else if (code === 0) {
        resolve();
      } else {
        const last = firstError(options.log) ?? tail.trim().split('\n').filter(Boolean).slice(-1)[0] ?? '';
        reject(
          new SandboxError(
            'SANDBOX_START_FAILED',
            `${command} failed (${signal ?? `exit ${code}`}): ${last} (log: ${options.log.replace(/\.tmp-[^/]*\.log$/, '.failed.log')})`,
          ),
        );
      }
    });
    child.stdin?.on('error', () => {});
    child.stdin?.end(options.stdin ?? '');
  });
}

function processAlive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/**
 * Entries of the image cache no current profile uses: images of older package lists (or builder
 * versions), builds abandoned by a dead process, logs of failed builds. Full paths.
 */
export function staleDebianImages(): string[] {
  const current = new Map<string, string>();
  for (const profile of imageProfiles()) {
    if (profile.kind === 'root') current.set(profile.name, debianImageKey(profile));
  }
  let names: string[] = [];
  try {
    names = readdirSync(imagesDir());
  } catch {
    return [];
  }
  const stale: string[] = [];
  for (const name of names.sort()) {
    const match = /^debian-(.+)-([0-9a-f]{16})(?:\.tmp-(\d+)-\d+(?:\.log)?|(\.failed\.log))?$/.exec(name);
    if (!match) continue;
    const [, profile, key, pid, failed] = match;
    const building = pid !== undefined;
    if (building ? !processAlive(Number(pid)) : failed !== undefined || current.get(profile!) !== key) {
      stale.push(join(imagesDir(), name));
    }
  }
  return stale;
}

/** Removes what `staleDebianImages` lists; returns the removed paths. Run it when no run uses old images. */
export function pruneDebianImages(): string[] {
  const stale = staleDebianImages();
  for (const path of stale) removeTree(path);
  return stale.filter((path) => !existsSync(path));
}

/** The first line of a build log that says what failed (a package dpkg could not set up, an apt error). */
function firstError(log: string): string | undefined {
  let text = '';
  try {
    text = readFileSync(log, 'utf8');
  } catch {
    return undefined;
  }
  const lines = text.split('\n');
  return (
    lines.find((line) => /^dpkg: error processing package /.test(line)) ??
    lines.find((line) => /^E: /.test(line) && !/mmdebstrap failed to run/.test(line))
  )?.trim();
}
