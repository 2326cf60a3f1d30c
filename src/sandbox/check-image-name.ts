import { SandboxError } from '../core/errors.js';
import { debianProfileOf } from './images/debian-image.js';
import { imageProfile } from './images/image-profiles.js';

/** The image name forms a backend accepts: `host`, `dir:/path`, `debian[:profile]`, `docker:<name>`. */
export type ImageForm = 'host' | 'dir' | 'debian' | 'docker';

/**
 * Checks an image name's form against those a backend accepts, and a Debian profile against the
 * known profiles; a one-line SandboxError names the backend and what it accepts.
 */
export function checkImageName(image: string, backend: string, accepted: readonly ImageForm[]): void {
  const profile = debianProfileOf(image);
  const form: ImageForm | undefined =
    image === 'host'
      ? 'host'
      : image.startsWith('dir:') && image.length > 4
        ? 'dir'
        : profile !== null
          ? 'debian'
          : image.startsWith('docker:') && image.length > 7
            ? 'docker'
            : undefined;
  if (form === undefined || !accepted.includes(form)) {
    const known = accepted.map((name) =>
      name === 'dir'
        ? 'dir:/path'
        : name === 'debian'
          ? 'debian, debian:<profile>'
          : name === 'docker'
            ? 'docker:<name>'
            : name,
    );
    throw new SandboxError(
      'SANDBOX_INVALID_SPEC',
      `image "${image}" is not available on the ${backend} backend (known: ${known.join(', ')})`,
    );
  }
  if (profile !== null) {
    try {
      imageProfile(profile);
    } catch (error) {
      throw new SandboxError('SANDBOX_INVALID_SPEC', `image "${image}": ${(error as Error).message}`);
    }
  }
}
