import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { SandboxError } from '../../core/errors.js';
import { cacheDir } from '../../core/host/cache-dir.js';
import { debianImageKey } from './debian-recipe.js';
import { type RootProfile, rootProfile } from './image-profiles.js';

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

/** Build facts kept next to the image (`image.json`). */
export interface DebianImageRecord {
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

/** The folder of the cached images. */
export function debianImagesDir(): string {
  return join(cacheDir(), 'images');
}

/** Where the image of a profile lives in the cache (its folder, root, tar and manifest), built or not. */
export function debianImagePaths(profile: RootProfile): DebianImage & { dir: string } {
  const key = debianImageKey(profile);
  const dir = join(debianImagesDir(), `debian-${profile.name}-${key}`);
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
  const paths = debianImagePaths(rootProfile(profile));
  const built = existsSync(join(paths.dir, 'complete'));
  if (!built) return { ...paths, built };
  let record: Partial<DebianImageRecord> = {};
  try {
    record = JSON.parse(readFileSync(join(paths.dir, 'image.json'), 'utf8')) as DebianImageRecord;
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
