import { createHash } from 'node:crypto';
import type { RootProfile } from './image-profiles.js';

/** The Debian release every image is built from. */
export const DEBIAN_SUITE = 'bookworm';

/** Bumped when the way images are built changes, so that every cached image is rebuilt. */
const BUILDER_VERSION = 'debian-image-v1';

/** Documentation and translations are left out of images (dpkg filters); copyright files stay. */
export const DPKG_OPTIONS = [
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
export const SETUP_HOOKS = ['mkdir -p "$1/usr/share/man/man1"'];

/**
 * Run once the packages are in: the C.UTF-8 locale (every sandbox's `LANG`) also goes into the
 * locale archive, so a program loads it with one mapping instead of a file per category (see
 * `locale-archive.ts`, which does the same for the `host` image).
 */
export const CUSTOMIZE_HOOKS = ['chroot "$1" localedef --add-to-archive /usr/lib/locale/C.utf8'];

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
      `${BUILDER_VERSION}\n${DEBIAN_SUITE}\n${architecture}\n${DPKG_OPTIONS.join('\n')}\n${SETUP_HOOKS.join('\n')}\n${CUSTOMIZE_HOOKS.join('\n')}\n${packages.join(' ')}\n`,
    )
    .update(customize.length > 0 ? `customize\n${customize.join('\n')}\n` : '')
    .digest('hex')
    .slice(0, 16);
}
