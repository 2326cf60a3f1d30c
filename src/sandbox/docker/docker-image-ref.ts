import { clockLibraryPath } from '../deterministic-clock.js';
import { type ImageRef, imageRefOn } from '../image-ref.js';
import { profileHasClockLibrary } from '../images/image-profiles.js';

/** The image a docker sandbox gets when the spec names none. */
export const DOCKER_DEFAULT_IMAGE = 'debian';

/** An image name the docker backend runs: the project's Debian root, or an image of the daemon. */
export type DockerImageRef = Extract<ImageRef, { kind: 'debian' | 'docker' }>;

/**
 * The parsed image name on the docker backend, or a one-line SandboxError naming what it takes.
 * Nothing is loaded or contacted (no Docker client, no daemon): the CLI checks `--image` with it.
 */
export function dockerImageRef(image: string): DockerImageRef {
  return imageRefOn(image, {
    backend: 'docker',
    kinds: ['debian', 'docker'],
    usage: 'debian, debian:<profile> or docker:<name>',
  });
}

/**
 * libfaketime's path in a docker image: the project's Debian images have it; what a foreign image
 * (`docker:<name>`) has is not known up front (null).
 */
export function dockerClockLibrary(ref: DockerImageRef): string | null {
  return ref.kind === 'debian' && profileHasClockLibrary(ref.profile) ? clockLibraryPath() : null;
}
