import { SandboxError } from '../core/errors.js';
import { rootProfile } from './images/image-profiles.js';

/**
 * A sandbox image name (`SandboxSpec.image`, `--image`), parsed. The forms:
 * - `host`: the host's /usr read-only with a synthetic /etc (bwrap);
 * - `dir:/path`: a root file system directory (bwrap);
 * - `debian` / `debian:<profile>`: the project's Debian root of a profile, `debian` being `bash`;
 * - `docker:<name>`: an image already in the Docker daemon (docker).
 */
export type ImageRef =
  | { readonly kind: 'host' }
  | { readonly kind: 'dir'; readonly path: string }
  | { readonly kind: 'debian'; readonly profile: string }
  | { readonly kind: 'docker'; readonly name: string };

export type ImageKind = ImageRef['kind'];

/** The profile `debian` stands for. */
const DEBIAN_DEFAULT_PROFILE = 'bash';

/** The one parser of image names; null for a string of none of the forms. */
export function parseImageRef(image: string): ImageRef | null {
  if (image === 'host') return { kind: 'host' };
  if (image === 'debian') return { kind: 'debian', profile: DEBIAN_DEFAULT_PROFILE };
  const colon = image.indexOf(':');
  const rest = image.slice(colon + 1);
  if (colon < 0 || rest === '') return null;
  switch (image.slice(0, colon)) {
    case 'dir':
      return { kind: 'dir', path: rest };
    case 'debian':
      return { kind: 'debian', profile: rest };
    case 'docker':
      return { kind: 'docker', name: rest };
    default:
      return null;
  }
}

/** The image names a backend accepts. */
export interface ImageSupport<K extends ImageKind> {
  readonly backend: string;
  readonly kinds: readonly K[];
  /** The accepted forms, for messages: `debian, debian:<profile> or docker:<name>`. */
  readonly usage: string;
}

/**
 * The parsed image name if `support` accepts it and its Debian profile exists (built or not),
 * otherwise a one-line SandboxError (`SANDBOX_INVALID_SPEC`) that says which names the backend takes.
 */
export function imageRefOn<K extends ImageKind>(
  image: string,
  support: ImageSupport<K>,
): Extract<ImageRef, { kind: K }> {
  const ref = parseImageRef(image);
  if (ref === null || !(support.kinds as readonly ImageKind[]).includes(ref.kind)) {
    throw new SandboxError(
      'SANDBOX_INVALID_SPEC',
      `image ${JSON.stringify(image)} is not available on the ${support.backend} backend (use ${support.usage})`,
    );
  }
  if (ref.kind === 'debian') rootProfile(ref.profile);
  return ref as Extract<ImageRef, { kind: K }>;
}
