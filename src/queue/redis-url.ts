import type { RedisOptions } from 'ioredis';
import { UsageError } from '../core/errors.js';

/**
 * The connection settings of a `--redis URL` (`redis://[user:password@]host[:port][/db]`, or
 * `rediss://` for TLS), checked before anything connects: a bad URL is one line naming it.
 * Clients retry forever (a restarted Redis is waited for, never an error), and commands wait for
 * the connection (BullMQ needs `maxRetriesPerRequest: null`).
 */
export function redisOptionsOf(url: string): RedisOptions {
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    throw new UsageError(`--redis ${url}: not a URL (expected redis://host:port)`);
  }
  if (parsed.protocol !== 'redis:' && parsed.protocol !== 'rediss:')
    throw new UsageError(`--redis ${url}: the scheme must be redis:// or rediss://`);
  if (parsed.hostname === '') throw new UsageError(`--redis ${url}: the host is missing`);
  const port = parsed.port === '' ? 6379 : Number(parsed.port);
  const path = parsed.pathname.replace(/^\//, '');
  if (path !== '' && !/^\d+$/.test(path))
    throw new UsageError(`--redis ${url}: the path must be a database number (e.g. /0)`);
  return {
    host: parsed.hostname.replace(/^\[|\]$/g, ''),
    port,
    ...(parsed.username ? { username: decodeURIComponent(parsed.username) } : {}),
    ...(parsed.password ? { password: decodeURIComponent(parsed.password) } : {}),
    ...(path !== '' ? { db: Number(path) } : {}),
    ...(parsed.protocol === 'rediss:' ? { tls: {} } : {}),
    maxRetriesPerRequest: null,
    retryStrategy: (times: number) => Math.min(100 * times, 1000),
  };
}

/** The URL without its password, for messages. */
export function redisUrlForDisplay(url: string): string {
  try {
    const parsed = new URL(url);
    if (parsed.password) parsed.password = '***';
    return parsed.toString();
  } catch {
    return url;
  }
}
