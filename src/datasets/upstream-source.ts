import { isAbsolute, resolve } from 'node:path';
import { UPSTREAM_COMMIT } from './upstream-manifest.js';

/** Where upstream files come from: the pinned upstream address, or a mirror with the upstream layout. */
export type UpstreamSource =
  | { readonly kind: 'url'; readonly base: string; readonly mirror: boolean }
  | { readonly kind: 'dir'; readonly dir: string; readonly mirror: true };

/** The raw-file address of the upstream repository at the pinned commit. */
export const UPSTREAM_BASE_URL = `https://raw.githubusercontent.com/princeton-nlp/intercode/${UPSTREAM_COMMIT}`;

/** The source in effect: `INTERCODE_DATA_MIRROR` (a directory or an http(s) base URL) if set, else upstream. */
export function upstreamSource(): UpstreamSource {
  const mirror = process.env.INTERCODE_DATA_MIRROR?.trim();
  if (!mirror) return { kind: 'url', base: UPSTREAM_BASE_URL, mirror: false };
  if (/^https?:\/\//i.test(mirror)) return { kind: 'url', base: mirror.replace(/\/+$/, ''), mirror: true };
  const dir = mirror.startsWith('file://') ? new URL(mirror).pathname : mirror;
  return { kind: 'dir', dir: isAbsolute(dir) ? dir : resolve(dir), mirror: true };
}

/** The address of one upstream path in a source, for messages and for fetching. */
export function sourceLocation(source: UpstreamSource, path: string): string {
  return source.kind === 'dir'
    ? resolve(source.dir, path)
    : `${source.base}/${path.split('/').map(encodeURIComponent).join('/')}`;
}

/** A short name of the source for messages: `mirror <x>` or `upstream <commit>`. */
export function sourceName(source: UpstreamSource): string {
  if (source.kind === 'dir') return `mirror ${source.dir}`;
  return source.mirror ? `mirror ${source.base}` : `upstream ${UPSTREAM_COMMIT.slice(0, 12)}`;
}
