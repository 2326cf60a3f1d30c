import type { Redis } from 'ioredis';

/**
 * How long a run's result stream outlives its last result, s: the gathering run deletes it when the
 * run ends; this only bounds what a duplicate delivery after that end leaves behind.
 */
const RESULT_STREAM_TTL_S = 7 * 24 * 3600;

/** How long past its blocking time a read may go unanswered before its connection is replaced, ms. */
const READ_GRACE_MS = 5_000;

/** Results a read takes at most. */
const BATCH = 512;

/** One worker result: the job it is the result of and its value (JSON). */
export interface StreamedResult {
  readonly entryId: string;
  readonly jobId: string;
  readonly value: string;
}

/**
 * A worker hands its result over: appended to the run's result stream (a Redis stream the gathering
 * run reads in batches) before the job completes, so a job that completed always left its result;
 * a job played twice leaves two, of which the gathering run keeps the first.
 */
export async function publishResult(redis: Redis, key: string, jobId: string, value: string): Promise<void> {
  const replies = await redis
    .pipeline()
    .xadd(key, '*', 'job', jobId, 'value', value)
    .expire(key, RESULT_STREAM_TTL_S)
    .exec();
  const failure = replies?.find(([error]) => error)?.[0];
  if (!replies || failure) throw failure ?? new Error(`Redis did not take the result of ${jobId}`);
}

/**
 * The gathering run's side: reads the results after the last one read (blocking up to `blockMs` on a
 * connection of its own), and deletes those the run's log has on disk, in the same round trip as
 * the next read. After Redis came back it reads from the start again: what it finds twice, the
 * run's log already has.
 */
export class ResultReader {
  readonly #connect: () => Redis;
  #redis: Redis;
  readonly #key: string;
  #after = '0-0';
  /** Results on disk, deleted with the next read. */
  #recorded: string[] = [];

  /** `connect` makes a connection of the reader's own (a read blocks it). */
  constructor(connect: () => Redis, key: string) {
    this.#connect = connect;
    this.#redis = connect();
    this.#key = key;
  }

  /**
   * Results after the last read, at most a batch; empty after `blockMs` without one. A read that has
   * not answered `blockMs` + READ_GRACE_MS later (its connection was lost and the read not sent again)
   * fails, and the next one goes through a new connection.
   */
  async read(blockMs: number): Promise<StreamedResult[]> {
    const recorded = this.#recorded.splice(0);
    const pipeline = this.#redis.pipeline();
    if (recorded.length > 0) pipeline.xdel(this.#key, ...recorded);
    pipeline.xread('COUNT', BATCH, 'BLOCK', blockMs, 'STREAMS', this.#key, this.#after);
    let timer: NodeJS.Timeout | undefined;
    const stuck = new Promise<never>((_, reject) => {
      timer = setTimeout(() => {
        this.#redis.disconnect();
        this.#redis = this.#connect();
        reject(new Error('the read of results did not answer'));
      }, blockMs + READ_GRACE_MS);
    });
    const replies = await Promise.race([pipeline.exec(), stuck])
      .catch((error: unknown) => {
        this.#recorded.unshift(...recorded);
        throw error;
      })
      .finally(() => clearTimeout(timer));
    const [error, reply] = replies?.at(-1) ?? [new Error('Redis did not answer the read'), null];
    if (error) throw error;
    const entries = (reply as [string, [string, string[]][]][] | null)?.[0]?.[1] ?? [];
    const results: StreamedResult[] = [];
    for (const [entryId, fields] of entries) {
      this.#after = entryId;
      let jobId: string | undefined;
      let value: string | undefined;
      for (let i = 0; i + 1 < fields.length; i += 2) {
        if (fields[i] === 'job') jobId = fields[i + 1];
        else if (fields[i] === 'value') value = fields[i + 1];
      }
      if (jobId !== undefined && value !== undefined) results.push({ entryId, jobId, value });
    }
    return results;
  }

  /** Reads from the start of the stream again (Redis came back: the stream may be another). */
  rewind(): void {
    this.#after = '0-0';
  }

  /** Ends the reader's connection (a read in progress fails). */
  close(): void {
    this.#redis.disconnect();
  }

  /** Results the run's log now has on disk: deleted from the stream with the next read. */
  recorded(entryIds: readonly string[]): void {
    this.#recorded.push(...entryIds);
  }
}
