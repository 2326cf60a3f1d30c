import { QueueError } from '../core/errors.js';
import type { CheckItem } from '../core/host/check-item.js';
import { connectRedis } from './redis-connection.js';
import { redisUrlForDisplay } from './redis-url.js';

/** The lowest Redis BullMQ runs on. */
const MIN_VERSION = [5, 0, 0];

function atLeast(version: string, minimum: readonly number[]): boolean {
  const parts = version.split('.').map(Number);
  for (let i = 0; i < minimum.length; i++) {
    const part = parts[i] ?? 0;
    if (part !== minimum[i]) return part > minimum[i]!;
  }
  return true;
}

function infoField(info: string, name: string): string | undefined {
  return info.match(new RegExp(`^${name}:(.*)$`, 'm'))?.[1]?.trim();
}

/**
 * `intercode doctor --redis URL`: connects once (no retries), then PING with its round trip,
 * the server's version, and its `maxmemory-policy`, which must be `noeviction` for BullMQ (an
 * evicting Redis may drop jobs).
 */
export async function checkRedis(url: string): Promise<CheckItem[]> {
  const shown = redisUrlForDisplay(url);
  const redis = connectRedis(url, {
    retryStrategy: () => null,
    maxRetriesPerRequest: 0,
    connectTimeout: 5000,
    lazyConnect: true,
  });
  let lastError: Error | undefined;
  redis.on('error', (error: Error) => {
    lastError = error;
  });
  try {
    const started = performance.now();
    try {
      await redis.connect();
      await redis.ping();
    } catch (error) {
      return [
        {
          name: 'connection',
          ok: false,
          detail: `${shown}: ${(lastError ?? (error as Error)).message}`,
          fix: 'start redis-server (Debian: apt-get install redis-server) or check the URL, its password and the firewall',
        },
      ];
    }
    const roundTrip = performance.now() - started;
    const pingStart = performance.now();
    await redis.ping();
    const ping = performance.now() - pingStart;
    const server = await redis.info('server');
    const memory = await redis.info('memory');
    const version = infoField(server, 'redis_version') ?? 'unknown';
    const policy = infoField(memory, 'maxmemory_policy') ?? 'unknown';
    return [
      {
        name: 'connection',
        ok: true,
        detail: `${shown}: PONG, round trip ${ping.toFixed(2)} ms (connect ${roundTrip.toFixed(1)} ms)`,
      },
      {
        name: 'version',
        ok: atLeast(version, MIN_VERSION),
        detail: `Redis ${version}${atLeast(version, MIN_VERSION) ? '' : ` (BullMQ needs ${MIN_VERSION.join('.')} or later)`}`,
        fix: 'install a newer redis-server',
      },
      {
        name: 'maxmemory-policy',
        ok: policy === 'noeviction',
        detail:
          policy === 'noeviction'
            ? 'noeviction (what BullMQ needs: no job is ever evicted)'
            : `${policy}: BullMQ needs noeviction, or Redis may evict jobs when memory runs short`,
        fix: 'redis-cli CONFIG SET maxmemory-policy noeviction (and set it in redis.conf)',
      },
    ];
  } finally {
    redis.disconnect();
  }
}

/** Throws a one-line error (exit 2) when the Redis of `--redis` does not answer a PING. */
export async function assertRedisReachable(url: string): Promise<void> {
  const [connection] = await checkRedis(url);
  if (connection && !connection.ok) {
    throw new QueueError(
      'QUEUE_UNREACHABLE',
      `cannot reach the Redis of --redis: ${connection.detail} (\`intercode doctor --redis URL\` checks it)`,
    );
  }
}
