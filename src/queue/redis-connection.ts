import type { ConnectionOptions } from 'bullmq';
import { Redis, type RedisOptions } from 'ioredis';
import { redisOptionsOf } from './redis-url.js';

/** A client of the URL (see {@link redisOptionsOf}); `lazy` ones connect on their first command. */
export function connectRedis(url: string, overrides: RedisOptions = {}): Redis {
  return new Redis({ ...redisOptionsOf(url), ...overrides });
}

/** The URL's settings as BullMQ takes them (each queue, worker and event reader makes its own clients). */
export function bullConnection(url: string): ConnectionOptions {
  return redisOptionsOf(url) as ConnectionOptions;
}
