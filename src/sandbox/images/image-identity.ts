import { parseImageRef } from '../image-ref.js';
import { debianImageKey } from './debian-recipe.js';
import { rootProfile } from './image-profiles.js';

/**
 * What a sandbox image name stands for, for cache keys of things built on it (file-system layers):
 * `debian[:profile]` adds the profile's image key, so a layer is rebuilt when the package list of
 * its image changes. Other names (`host`, `dir:/path`) are their own identity.
 */
export function imageIdentity(image: string): string {
  const ref = parseImageRef(image);
  if (ref?.kind !== 'debian') return image;
  return `debian:${ref.profile}@${debianImageKey(rootProfile(ref.profile))}`;
}
