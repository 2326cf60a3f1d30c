import { type ImageRef, imageRefOn } from '../image-ref.js';

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
