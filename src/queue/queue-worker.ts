import { hostname } from 'node:os';
import { DelayedError, type Job, WaitingError, Worker } from 'bullmq';
import type { Redis } from 'ioredis';
import type { EpisodeRecord } from '../harness/episode-record.js';
import { withSample } from '../harness/episode-slots.js';
import { EpisodeAborted, playEpisode } from '../harness/play-episode.js';
import { type EpisodeResult, prefixesOf } from './episode-result.js';
import { type EpisodeJobData, QueueKeys } from './queue-keys.js';
import { bullConnection, connectRedis } from './redis-connection.js';
import { publishResult } from './result-stream.js';
import { RunContext, type WorkerRun } from './run-context.js';
import { type RunMeta, readRunMeta } from './run-meta.js';
import { RunRefused } from './run-refused.js';
import type { WorkerAnnouncement } from './worker-watch.js';

export interface QueueWorkerOptions {
  readonly redisUrl: string;
  readonly queue: string;
  /** Episodes played at once (each with its own env). */
  readonly concurrency: number;
  /** This worker's project version: runs of another version are refused. */
  readonly version: string;
  /** Stop taking episodes after this many finished. */
  readonly maxEpisodes?: number;
  /** How long a job's lock lasts without renewal: a killed worker's episode is retried after it, ms. */
  readonly lockDurationMs: number;
  /** Opens a run from its meta through the shared run-setup path (plan, dataset, envs, agent). */
  readonly openRun: (meta: RunMeta) => Promise<WorkerRun>;
  /** How long a run stays open without an episode of it, ms (`--run-idle`; default 60 s). */
  readonly runIdleMs?: number;
  /** One line of the worker's log. */
  readonly log: (line: string) => void;
  /** How long a refused or not-yet-described job waits before it is offered again, ms (default 1000). */
  readonly retryDelayMs?: number;
}

type Opened = { readonly context: RunContext } | { readonly refusal: string };

/**
 * `intercode worker`: takes episode jobs from the BullMQ queue and plays them through the same
 * run-setup path as a local run, one opened run per run id. Before its first episode of a run it
 * compares the project version and the dataset checksum with the run's; on a difference it plays
 * nothing, records why in the run's refusals, and hands the job back for another worker.
 */
export class QueueWorker {
  readonly id = `${hostname()}:${process.pid}`;
  readonly #options: QueueWorkerOptions;
  readonly #keys: QueueKeys;
  readonly #redis: Redis;
  readonly #worker: Worker;
  readonly #runs = new Map<string, Promise<Opened | undefined>>();
  /** Per run id: episodes in play, and when the last one ended (performance.now()). */
  readonly #use = new Map<string, { playing: number; lastEnded: number }>();
  readonly #abort = new AbortController();
  readonly #started = new Date().toISOString();
  readonly #announcer: NodeJS.Timeout;
  #finished = 0;
  #stopping: Promise<void> | undefined;
  #lost = false;

  constructor(options: QueueWorkerOptions) {
    this.#options = options;
    this.#keys = new QueueKeys(options.queue);
    this.#redis = connectRedis(options.redisUrl);
    this.#redis.on('error', (error: Error) => this.#lostRedis(error.message));
    this.#redis.on('ready', () => {
      if (this.#lost) options.log(`Redis is back`);
      this.#lost = false;
      void this.#announce();
    });
    this.#worker = new Worker(options.queue, (job, token) => this.#process(job, token), {
      connection: bullConnection(options.redisUrl),
      // Jobs record who plays them (`processedBy`): the announced id.
      name: this.id,
      concurrency: options.concurrency,
      lockDuration: options.lockDurationMs,
      stalledInterval: options.lockDurationMs,
      maxStalledCount: 2,
      autorun: false,
    });
    this.#worker.on('error', (error: Error) => this.#lostRedis(error.message));
    this.#worker.on('completed', () => {
      this.#finished += 1;
      if (options.maxEpisodes !== undefined && this.#finished >= options.maxEpisodes) void this.stop();
    });
    const every = Math.max(1000, Math.min(5000, options.lockDurationMs / 3));
    this.#announcer = setInterval(() => {
      void this.#announce();
      void this.#closeIdleRuns();
    }, every);
    this.#announcer.unref();
  }

  /** Episodes finished so far. */
  get finished(): number {
    return this.#finished;
  }

  /** Takes jobs until {@link stop}; resolves when the worker has stopped. */
  async run(): Promise<void> {
    await this.#announce();
    await this.#worker.run();
    await this.#stopping;
  }

  /**
   * Stops taking jobs and lets the episodes in flight finish for `graceMs` (default: as long as they
   * take); those still running then are aborted and handed back to the queue for another worker.
   */
  stop(graceMs?: number): Promise<void> {
    this.#stopping ??= (async () => {
      const closing = this.#worker.close();
      const timer = graceMs === undefined ? undefined : setTimeout(() => this.#abort.abort(), graceMs);
      await closing.catch(() => {});
      clearTimeout(timer);
      clearInterval(this.#announcer);
      const runs = await Promise.all(
        [...this.#runs.values()].map((opening) => opening.catch(() => undefined)),
      );
      await Promise.allSettled(
        runs.map((opened) => (opened && 'context' in opened ? opened.context.close() : undefined)),
      );
      await this.#redis.del(this.#keys.worker(this.id)).catch(() => {});
      await this.#redis.quit().catch(() => {});
      this.#redis.disconnect();
    })();
    return this.#stopping;
  }

  #lostRedis(reason: string): void {
    if (this.#lost || this.#stopping) return;
    this.#lost = true;
    this.#options.log(`lost Redis (${reason}); reconnecting`);
  }

  async #announce(): Promise<void> {
    if (this.#stopping || this.#redis.status !== 'ready') return;
    const announcement: WorkerAnnouncement = {
      id: this.id,
      host: hostname(),
      pid: process.pid,
      capacity: this.#options.concurrency,
      version: this.#options.version,
      started: this.#started,
      lastSeen: new Date().toISOString(),
    };
    const ttl = Math.ceil((3 * Math.max(1000, Math.min(5000, this.#options.lockDurationMs / 3))) / 1000);
    await this.#redis
      .set(this.#keys.worker(this.id), JSON.stringify(announcement), 'EX', ttl)
      .catch(() => {});
  }

  async #process(job: Job, token: string | undefined): Promise<void> {
    const data = job.data as EpisodeJobData;
    const use = this.#use.get(data.runId) ?? { playing: 0, lastEnded: 0 };
    this.#use.set(data.runId, use);
    use.playing += 1;
    try {
      await this.#play(job, token, data);
    } finally {
      use.playing -= 1;
      use.lastEnded = performance.now();
    }
  }

  /**
   * Closes the runs no episode was played of for `runIdleMs` (their envs, engines and agent): a
   * worker serves run after run. A run that comes back is opened again.
   */
  async #closeIdleRuns(): Promise<void> {
    const now = performance.now();
    for (const [runId, use] of this.#use) {
      if (use.playing > 0 || now - use.lastEnded < (this.#options.runIdleMs ?? 60_000)) continue;
      const opening = this.#runs.get(runId);
      this.#use.delete(runId);
      this.#runs.delete(runId);
      const opened = await opening?.catch(() => undefined);
      if (opened && 'context' in opened) {
        await opened.context.close().catch(() => {});
        this.#options.log(
          `closed run ${runId}: no episode of it for ${Math.round((now - use.lastEnded) / 1000)} s`,
        );
      }
    }
  }

  async #play(job: Job, token: string | undefined, data: EpisodeJobData): Promise<void> {
    const opened = await this.#open(data.runId);
    if (opened === undefined || 'refusal' in opened) {
      if (opened) {
        await this.#redis.hset(this.#keys.refusals(data.runId), this.id, opened.refusal);
      }
      await job.moveToDelayed(Date.now() + (this.#options.retryDelayMs ?? 1000), token);
      throw new DelayedError();
    }
    const { context } = opened;
    const task = context.task(data.taskIndex, data.taskId);
    const { meta, worker } = context;
    const env = context.takeEnv();
    const policy = worker.agent.episode(task);
    let record: EpisodeRecord;
    try {
      record = await playEpisode(env, task, policy, {
        maxTurns: meta.maxTurns,
        scoreEveryTurn: worker.agent.scoreEveryTurn ?? meta.scoreEveryTurn,
        ...(worker.agent.submitAtTurnLimit ? { submitAtTurnLimit: true } : {}),
        dataset: worker.run.dataset.id,
        signal: this.#abort.signal,
      });
    } catch (error) {
      await env.close().catch(() => {});
      if (error instanceof EpisodeAborted || this.#abort.signal.aborted) {
        await job.moveToWait(token);
        throw new WaitingError();
      }
      throw error;
    } finally {
      await policy.close?.();
    }
    context.giveEnv(env);
    const sampled = withSample(record, data.sample, meta.samples);
    const result: EpisodeRecord | EpisodeResult = worker.prefixes
      ? { record: sampled, prefixes: prefixesOf(sampled, worker.prefixes) }
      : sampled;
    // Handed over before the job completes (its completion then carries nothing).
    await publishResult(this.#redis, this.#keys.results(data.runId), job.id ?? '', JSON.stringify(result));
  }

  /** The run's context, opened once per run id; undefined while Redis holds no meta for it. */
  #open(runId: string): Promise<Opened | undefined> {
    let opening = this.#runs.get(runId);
    if (!opening) {
      opening = readRunMeta(this.#redis, this.#keys, runId).then((meta) => meta && this.#openRun(meta));
      this.#runs.set(runId, opening);
      // Not described yet (Redis lost it: the run writes it again) or failed to open (a download that
      // failed): the job's next try opens it again.
      opening.then(
        (opened) => opened === undefined && this.#runs.delete(runId),
        () => this.#runs.delete(runId),
      );
    }
    return opening;
  }

  async #openRun(meta: RunMeta): Promise<Opened> {
    if (meta.version !== this.#options.version)
      return { refusal: `project ${this.#options.version} ≠ ${meta.version}` };
    let worker: WorkerRun;
    try {
      worker = await this.#options.openRun(meta);
    } catch (error) {
      if (error instanceof RunRefused) return { refusal: error.message };
      throw error;
    }
    if (worker.checksum !== meta.datasetChecksum) {
      await worker.run.close();
      await worker.closeAgent?.();
      return {
        refusal: `dataset ${meta.dataset} checksum ${worker.checksum.slice(0, 12)} ≠ ${meta.datasetChecksum.slice(0, 12)}`,
      };
    }
    return { context: new RunContext(meta, worker) };
  }
}
