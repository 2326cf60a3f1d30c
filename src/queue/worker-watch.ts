import type { Redis } from 'ioredis';
import type { QueueKeys } from './queue-keys.js';

/** What a worker announces of itself (`<prefix>:workers:<id>`, refreshed while it runs). */
export interface WorkerAnnouncement {
  readonly id: string;
  readonly host: string;
  readonly pid: number;
  /** Episodes it plays at once. */
  readonly capacity: number;
  readonly version: string;
  /** ISO times. */
  readonly started: string;
  readonly lastSeen: string;
}

/**
 * The gathering run's view of the workers: how many are announced now and were seen since the run
 * started, and each refusal of the run, told once.
 */
export class WorkerWatch {
  readonly #redis: Redis;
  readonly #keys: QueueKeys;
  readonly #runId: string;
  readonly #told = new Set<string>();
  readonly #seen = new Set<string>();
  readonly #onRefusal: ((worker: string, reason: string) => void) | undefined;
  readonly #onWorkers: ((live: number, seen: number) => void) | undefined;

  constructor(
    redis: Redis,
    keys: QueueKeys,
    runId: string,
    listeners: {
      readonly onRefusal?: (worker: string, reason: string) => void;
      readonly onWorkers?: (live: number, seen: number) => void;
    },
  ) {
    this.#redis = redis;
    this.#keys = keys;
    this.#runId = runId;
    this.#onRefusal = listeners.onRefusal;
    this.#onWorkers = listeners.onWorkers;
  }

  async poll(): Promise<void> {
    const refusals = await this.#redis.hgetall(this.#keys.refusals(this.#runId));
    for (const [worker, reason] of Object.entries(refusals)) {
      const key = `${worker}\n${reason}`;
      if (this.#told.has(key)) continue;
      this.#told.add(key);
      this.#onRefusal?.(worker, reason);
    }
    if (!this.#onWorkers) return;
    const live = await listWorkers(this.#redis, this.#keys);
    for (const worker of live) this.#seen.add(worker.id);
    this.#onWorkers(live.length, this.#seen.size);
  }
}

/** The workers announced on a queue now. */
export async function listWorkers(redis: Redis, keys: QueueKeys): Promise<WorkerAnnouncement[]> {
  const found: string[] = [];
  let cursor = '0';
  do {
    const [next, batch] = await redis.scan(cursor, 'MATCH', keys.workersPattern(), 'COUNT', 100);
    cursor = next;
    found.push(...batch);
  } while (cursor !== '0');
  if (found.length === 0) return [];
  const values = await redis.mget(...found);
  return values.flatMap((value) => (value === null ? [] : [JSON.parse(value) as WorkerAnnouncement]));
}
