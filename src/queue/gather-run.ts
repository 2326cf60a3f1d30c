import { join } from 'node:path';
import { type Job, Queue } from 'bullmq';
import { writeFileAtomic } from '../core/host/atomic-write.js';
import { episodeKey } from '../core/run-files/episode-line.js';
import { EpisodeLog } from '../harness/episode-log.js';
import type { EpisodeRecord } from '../harness/episode-record.js';
import { type EpisodeSlot, episodeSlots, orderEpisodes, withSample } from '../harness/episode-slots.js';
import { failedEpisodeRecord } from '../harness/failed-episode-record.js';
import type { RunEnd } from '../harness/reporter.js';
import { summarize } from '../harness/run-summary.js';
import { resultOf } from './episode-result.js';
import type { GatherOptions } from './gather-options.js';
import { type EpisodeJobData, episodeJobId, QueueKeys } from './queue-keys.js';
import { bullConnection, connectRedis } from './redis-connection.js';
import { ResultReader } from './result-stream.js';
import { runIdOf } from './run-id-file.js';
import { type RunMeta, writeRunMeta } from './run-meta.js';
import { listWorkers, WorkerWatch } from './worker-watch.js';

/** The shortest time between two reads of an uncapped run's results while they keep coming, ms. */
const READ_INTERVAL_MS = 10;

/**
 * `intercode run --redis`: puts the run's episodes on a BullMQ queue (one job per episode, id
 * `<runId>.<taskIndex>.<sample>`, so enqueueing again is a no-op) and gathers the results into the
 * run directory. This process is its only writer and `episodes.jsonl` the source of truth: a result
 * is appended only when its (task, sample) is not there yet. Workers append results to the run's
 * result stream before their job completes (and BullMQ then removes it); this process reads the
 * stream in batches and deletes what the log has. Jobs that failed for good are found by a periodic
 * scan. What is not in the log is enqueued again whenever Redis comes back.
 */
export async function gatherRun(options: GatherOptions): Promise<RunEnd> {
  const started = performance.now();
  const { log, previous } = await EpisodeLog.openForRun(
    options.outDir,
    options.resume,
    options.description.dataset,
  );
  const runId = runIdOf(options.outDir, options.resume);
  const meta: RunMeta = { runId, ...options.meta };
  const keys = new QueueKeys(options.queue);
  const all = episodeSlots(options.tasks, options.samples);
  const byJobId = new Map(all.map((slot) => [episodeJobId(runId, slot.task.index, slot.sample), slot]));
  const jobIdOf = (slot: EpisodeSlot) => episodeJobId(runId, slot.task.index, slot.sample);
  const done = new Set(previous.map(episodeKey));
  const finished: EpisodeRecord[] = [...previous];
  const reporters = options.reporters ?? [];
  const pendingCount = all.filter((slot) => !done.has(slot.key)).length;
  for (const reporter of reporters) {
    reporter.onRunStart?.({
      description: options.description,
      outDir: options.outDir,
      total: pendingCount,
      alreadyDone: all.length - pendingCount,
    });
  }
  const redis = connectRedis(options.redisUrl);
  const queue = new Queue(options.queue, { connection: bullConnection(options.redisUrl) });
  // Its own connection: the read blocks until results come.
  const results = new ResultReader(() => {
    const reading = connectRedis(options.redisUrl);
    reading.on('error', () => {});
    return reading;
  }, keys.results(runId));
  const watch = new WorkerWatch(redis, keys, runId, options);
  const enqueuedAt = new Map<string, number>();
  const { budget } = options;
  // A resumed run's finished episodes count toward its cap.
  for (const record of previous)
    if (record.error === undefined) budget?.addFinished(record.costUsd === undefined ? 0 : record.costUsd);
  let stopReason: string | undefined;
  /** Episodes the live workers play at once (the capped run's window before any episode cost anything). */
  let capacity = 1;
  const inQueue = new Set<string>();
  let wake: () => void = () => {};
  let needEnqueue = true;
  let lost = false;
  let told = false;
  redis.on('close', () => {
    lost = true;
  });
  redis.on('error', (error: Error) => {
    if (!told) options.onRedisLost?.(error.message);
    told = true;
  });
  redis.on('ready', () => {
    if (lost) {
      needEnqueue = true;
      metaWritten = false;
      results.rewind();
    }
    lost = false;
    told = false;
    wake();
  });
  queue.on('error', () => {});

  const removeJob = (jobId: string) => queue.remove(jobId).catch(() => 0);
  /** Results accepted and not yet in the log: {@link flush} appends them together. */
  const pending: { slot: EpisodeSlot; record: EpisodeRecord; receivedAt: number }[] = [];
  /** Takes the episode unless the log has it (or it is pending); synchronous, so no two results race. */
  const accept = (slot: EpisodeSlot, record: EpisodeRecord): void => {
    inQueue.delete(slot.key);
    if (done.has(slot.key)) return;
    if (budget) {
      budget.add(record.costUsd === undefined ? 0 : record.costUsd, slot.key);
      budget.finish(slot.key);
      needEnqueue = true;
      // A costlier episode than before: those admitted may now cross the cap; the next enqueue removes them.
      if (stopReason === undefined && budget.committedUsd > budget.maxCostUsd + 1e-9)
        stopReason = budget.refusal();
    }
    done.add(slot.key);
    pending.push({ slot, record, receivedAt: performance.now() });
  };
  /**
   * The last flush of accepted results: flushes end in the order they began (the log flushes one at
   * a time), so the run has everything on disk once this one has ended.
   */
  let lastFlush: Promise<void> = Promise.resolve();
  /**
   * Writes the accepted results to the log and resolves once they are on disk (one flush for
   * whatever was written meanwhile), then tells the reporters.
   */
  const flush = (): Promise<void> => {
    if (pending.length === 0) return Promise.resolve();
    const batch = pending.splice(0);
    log.write(batch.map(({ record }) => record));
    const flushed = log.durable().then(() => {
      const appendedAt = performance.now();
      for (const { slot, record, receivedAt } of batch) {
        finished.push(record);
        options.onGathered?.(record, {
          enqueuedAt: enqueuedAt.get(slot.key) ?? started,
          receivedAt,
          appendedAt,
        });
        for (const reporter of reporters) reporter.onEpisodeEnd?.(record);
      }
      if (options.maxOutstanding !== undefined) needEnqueue = true;
      if (stopReason !== undefined && inQueue.size === 0) wake();
      // The loop wakes for what only it does (enqueue the next, finish); the scan keeps its own pace.
      if (needEnqueue || finished.length >= all.length) wake();
    });
    lastFlush = flushed;
    return flushed;
  };
  const completed = (jobId: string, value: unknown): void => {
    const slot = byJobId.get(jobId);
    if (!slot) return;
    if (!done.has(slot.key))
      accept(
        slot,
        resultOf(slot, value, {
          dataset: options.description.dataset,
          samples: options.samples,
          ...(options.prefixes ? { prefixes: options.prefixes } : {}),
        }),
      );
    else inQueue.delete(slot.key);
  };
  const failed = (job: Job): void => {
    const slot = byJobId.get(job.id ?? '');
    if (!slot) return;
    const error = new Error(`failed ${job.attemptsMade} time(s); the last: ${job.failedReason}`);
    const took = job.finishedOn && job.processedOn ? job.finishedOn - job.processedOn : 0;
    accept(
      slot,
      withSample(
        failedEpisodeRecord(slot.task, options.description.dataset, error, took),
        slot.sample,
        options.samples,
      ),
    );
  };

  let metaWritten = false;
  const enqueue = async (): Promise<void> => {
    needEnqueue = false;
    // Written at the start, and again on each periodic or reconnected enqueue (Redis may have lost it).
    if (!metaWritten || options.maxOutstanding === undefined) await writeRunMeta(redis, keys, meta);
    metaWritten = true;
    const window =
      budget && budget.episodeEstimateUsd === 0
        ? Math.max(1, capacity)
        : (options.maxOutstanding ?? Number.POSITIVE_INFINITY);
    const slots: EpisodeSlot[] = [];
    for (const slot of all) {
      if (done.has(slot.key)) continue;
      if (!inQueue.has(slot.key)) {
        if (inQueue.size >= window || stopReason !== undefined) continue;
        if (budget) {
          stopReason = budget.refusal();
          if (stopReason !== undefined) continue;
          budget.start(slot.key);
        }
      }
      inQueue.add(slot.key);
      slots.push(slot);
    }
    // A capped run that stopped: the jobs it removes are not enqueued again.
    if (stopReason !== undefined) await removeWaiting();
    const sending = slots.filter((slot) => inQueue.has(slot.key));
    const now = performance.now();
    for (const slot of sending) if (!enqueuedAt.has(slot.key)) enqueuedAt.set(slot.key, now);
    await queue.addBulk(
      sending.map((slot) => ({
        name: 'episode',
        data: {
          runId,
          taskIndex: slot.task.index,
          taskId: slot.task.id,
          sample: slot.sample,
        } satisfies EpisodeJobData,
        opts: {
          jobId: jobIdOf(slot),
          attempts: options.maxAttempts,
          backoff: { type: 'exponential', delay: 1000 },
          removeOnComplete: true,
          removeOnFail: false,
        },
      })),
    );
  };
  /**
   * Once the capped run stops, the jobs not taken yet go, the last enqueued first, while those in the
   * queue could cross the cap (at the costliest episode so far each): a job admitted under the cap is
   * played, as a local run finishes its episodes in flight. A job being played cannot be removed.
   */
  const removeWaiting = async (): Promise<void> => {
    for (const key of [...inQueue].reverse()) {
      if (!budget || budget.committedUsd <= budget.maxCostUsd + 1e-9) return;
      const slot = all.find((candidate) => candidate.key === key);
      if (slot && (await queue.remove(jobIdOf(slot)).catch(() => 0)) === 1) {
        inQueue.delete(key);
        budget?.finish(key);
      }
    }
  };
  const scan = async (): Promise<void> => {
    if (budget) {
      const workers = await listWorkers(redis, keys);
      capacity = workers.reduce((sum, worker) => sum + worker.capacity, 0);
      if (budget.episodeEstimateUsd === 0) needEnqueue = true;
    }
    if (stopReason !== undefined) await removeWaiting();
    // This run's jobs only: the queue may hold other runs'.
    const failures = (await queue.getFailed(0, -1)).filter(
      (job): job is Job => job?.id !== undefined && byJobId.has(job.id),
    );
    for (const job of failures) failed(job);
    // Removed once their records are on disk.
    await flush();
    await Promise.all(failures.map((job) => removeJob(job.id ?? '')));
    await watch.poll();
  };

  const signal = options.signal;
  const aborted = new Promise<void>((resolve) => {
    if (signal?.aborted) resolve();
    signal?.addEventListener('abort', () => resolve(), { once: true });
  });
  let lastEnqueue = 0;
  let lastScan = 0;
  const scanEvery = options.scanIntervalMs ?? 1000;
  let gathering = true;
  // Nothing waits on a result of an uncapped run, so while results keep coming they are read at most
  // every READ_INTERVAL_MS, in batches (each Redis round trip costs the machine CPU the workers could
  // use). A run whose enqueueing waits on results (a cost cap, a bound on the queue) reads at once.
  const paced = options.maxOutstanding === undefined && budget === undefined;
  /** Reads the result stream until the run ends: each batch is appended to the log, then deleted. */
  const pump = async (): Promise<void> => {
    while (gathering) {
      try {
        const readAt = performance.now();
        const batch = await results.read(1000);
        const pause = readAt + READ_INTERVAL_MS - performance.now();
        if (paced && batch.length > 0 && pause > 0)
          await new Promise((resolve) => setTimeout(resolve, pause));
        for (const result of batch) completed(result.jobId, result.value);
        // The next batch is read while this one goes to disk; its results leave Redis once there.
        const entryIds = batch.map((result) => result.entryId);
        void flush()
          .then(() => results.recorded(entryIds))
          .catch(() => {});
      } catch {
        if (gathering) await new Promise((resolve) => setTimeout(resolve, 200));
      }
    }
  };
  const pumping = pump();
  try {
    const stopped = () => stopReason !== undefined && inQueue.size === 0;
    while (done.size < all.length && !signal?.aborted && !stopped()) {
      if (performance.now() - lastEnqueue > 10_000) metaWritten = false;
      if (needEnqueue || !metaWritten) {
        lastEnqueue = performance.now();
        await Promise.race([enqueue(), aborted]);
      }
      if (performance.now() - lastScan >= scanEvery) {
        lastScan = performance.now();
        await Promise.race([scan(), aborted]);
      }
      if (done.size >= all.length || stopped()) break;
      const wait = Math.max(1, scanEvery - (performance.now() - lastScan));
      await Promise.race([
        new Promise<void>((resolve) => {
          wake = resolve;
          setTimeout(resolve, wait).unref();
        }),
        aborted,
      ]);
    }
  } finally {
    gathering = false;
    results.close();
    await pumping;
    void flush();
    await lastFlush.catch(() => {});
    log.close();
    const interrupted = done.size < all.length && (stopReason === undefined || signal?.aborted === true);
    await withTimeout(
      (async () => {
        if (interrupted) {
          // Waiting and delayed jobs go; a job being played finishes and is gathered by --resume.
          await Promise.all(
            all.filter((slot) => !done.has(slot.key)).map((slot) => removeJob(jobIdOf(slot))),
          );
        } else {
          await redis.del(keys.run(runId), keys.refusals(runId), keys.results(runId));
        }
      })(),
      5000,
    );
    await withTimeout(Promise.allSettled([queue.close(), redis.quit()]), 5000);
    redis.disconnect();
  }
  orderEpisodes(finished, options.tasks);
  const played = new Set(finished.map(episodeKey));
  const complete = all.every((slot) => played.has(slot.key));
  const summary = {
    ...summarize(options.description, finished, performance.now() - started, complete),
    ...(options.skipped?.length ? { skipped: options.skipped } : {}),
    ...(stopReason !== undefined ? { stopReason } : {}),
  };
  writeFileAtomic(join(options.outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const end: RunEnd = {
    summary,
    episodes: finished,
    outDir: options.outDir,
    interrupted: !complete && (stopReason === undefined || signal?.aborted === true),
    ...(stopReason !== undefined ? { stopReason } : {}),
  };
  for (const reporter of reporters) reporter.onRunEnd?.(end);
  return end;
}

async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined;
  await Promise.race([
    promise.catch(() => {}),
    new Promise<void>((resolve) => {
      timer = setTimeout(resolve, ms);
    }),
  ]);
  clearTimeout(timer);
}
