import { spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, renameSync, rmSync, statSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from '../../core/errors.js';
import { hostAptSources, releaseSources } from './apt-sources.js';
import {
  builtDebianImage,
  type DebianImage,
  type DebianImageRecord,
  debianImagePaths,
  debianImagesDir,
} from './debian-image.js';
import {
  CUSTOMIZE_HOOKS,
  DEBIAN_SUITE,
  DPKG_OPTIONS,
  debianArchitecture,
  SETUP_HOOKS,
} from './debian-recipe.js';
import { type RootProfile, rootProfile } from './image-profiles.js';
import { installedPackages } from './installed-packages.js';
import { removeTree } from './remove-tree.js';
import { runBuildStep } from './run-build-step.js';

/** /etc files of the image replaced by synthetic ones: no host name, no name server, no password hashes. */
const SYNTHETIC_ETC: Record<string, string> = {
  hostname: 'sandbox\n',
  hosts: '127.0.0.1\tlocalhost sandbox\n::1\tlocalhost ip6-localhost ip6-loopback\n',
  'resolv.conf': '',
};
const REMOVED_ETC = ['shadow', 'shadow-', 'gshadow', 'gshadow-', 'passwd-', 'group-', 'machine-id'];

export interface EnsureDebianImageOptions {
  /** mmdebstrap's progress, one line at a time. */
  readonly onProgress?: (line: string) => void;
  readonly signal?: AbortSignal;
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
  const paths = debianImagePaths(root);
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
  mkdirSync(debianImagesDir(), { recursive: true });
  const staging = `${paths.dir}.tmp-${process.pid}-${Date.now()}`;
  const log = `${staging}.log`;
  mkdirSync(staging, { recursive: true });
  writeFileSync(log, '');
  try {
    const rootfs = join(staging, 'rootfs');
    const packages = [...new Set(profile.packages)].sort();
    writeFileSync(join(staging, 'packages.txt'), `${packages.join('\n')}\n`);
    if (mirror.stdin) writeFileSync(join(staging, 'sources'), mirror.stdin);
    await runBuildStep(
      'mmdebstrap',
      [
        '--variant=minbase',
        `--architectures=${debianArchitecture()}`,
        `--include=${packages.join(',')}`,
        ...DPKG_OPTIONS.map((option) => `--dpkgopt=${option}`),
        '--aptopt=APT::Install-Recommends "false"',
        ...SETUP_HOOKS.map((hook) => `--setup-hook=${hook}`),
        ...[...CUSTOMIZE_HOOKS, ...(profile.customize ?? [])].map((hook) => `--customize-hook=${hook}`),
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
    await runBuildStep(
      'tar',
      ['--numeric-owner', '--sort=name', '-C', rootfs, '-cf', join(staging, 'image.tar'), '.'],
      {
        log,
        ...options,
      },
    );
    const record: DebianImageRecord = {
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
