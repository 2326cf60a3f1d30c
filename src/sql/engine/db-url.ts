import { UsageError } from '../../core/errors.js';

/**
 * A `--db-url` read as a URL of one of `protocols` (e.g. `mysql:`, `mariadb:`); `form` is the shape
 * the engine takes, for the message when the URL is of another kind. Throws `UsageError`.
 */
export function parseDbUrl(text: string, engine: string, protocols: readonly string[], form: string): URL {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    throw new UsageError(`--db-url: not a URL: ${text}`);
  }
  if (!protocols.includes(url.protocol)) {
    throw new UsageError(`--db-url: the ${engine} engine takes ${form}, not ${url.protocol}//`);
  }
  return url;
}

/** A URL's host without the brackets of an IPv6 address. */
export function urlHost(url: URL): string {
  return url.hostname.replace(/^\[(.*)\]$/, '$1');
}

/**
 * True when a server at `host` (or a Unix socket) is on this machine: leftovers of intercode
 * processes that died there may then be reaped.
 */
export function isLocalHost(host: string | undefined): boolean {
  return ['localhost', '127.0.0.1', '::1'].includes(host ?? '');
}
