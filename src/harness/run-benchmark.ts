import { join } from 'node:path';
import type { Agent } from '../agents/agent.js';
import type { Env } from '../core/env.js';
import { writeFileAtomic } from '../core/host/atomic-write.js';
import { episodeKey } from '../core/run-files/episode-line.js';
import type { Task } from '../core/task.js';
import { EpisodeLog } from './episode-log.js';
import type { EpisodeRecord } from './episode-record.js';
import { type EpisodeSlot, episodeSlots, orderEpisodes, withSample } from './episode-slots.js';
import { failedEpisodeRecord } from './failed-episode-record.js';
import { EpisodeAborted, playEpisode } from './play-episode.js';
import type { Reporter, RunEnd } from './reporter.js';
import { type RunDescription, type SkippedTask, summarize } from './run-summary.js';

export interface RunOptions {
  readonly tasks: readonly Task[];
  /** Selected tasks left out because the environment cannot run them here; listed in the summary. */
  readonly skipped?: readonly SkippedTask[];
  readonly description: RunDescription;
  readonly createEnv: () => Env;
  readonly agent: Agent;
  readonly concurrency: number;
  /** Episodes per task (`--samples`; default 1): an episode is identified by its task and sample. */
  readonly samples?: number;
  readonly outDir: string;
  readonly resume: boolean;
  readonly maxTurns: number;
  readonly scoreEveryTurn: boolean;
  readonly signal?: AbortSignal;
  /**
   * Stop the run after this many episodes in a row failed with an error (a dead database server,
   * a broken sandbox): every later episode would fail the same way. Default 5.
   */
  readonly maxConsecutiveErrors?: number;
  /** Told when the run starts, after each finished episode, and when it ends. */
  readonly reporters?: readonly Reporter[];
  /**
   * Asked before each episode starts: a reason stops the run there (the cost cap of `--max-cost`);
   * episodes in flight finish and are kept.
   */
  readonly mayStart?: () => string | undefined;
}

/** The end of a run, as its reporters saw it. */
export type RunResult = RunEnd;

/**
 * Plays every selected task with `concurrency` workers, each with its own env (and sandboxes).
 * Every finished episode is appended to `episodes.jsonl` at once; an episode that fails is recorded
 * with its error and the worker starts over with a fresh env. On abort, episodes in flight are
 * dropped (never half-written) and `summary.json` describes what finished.
 */
export async function runBenchmark(options: RunOptions): Promise<RunResult> {
  const started = performance.now();
  const { log, previous } = await EpisodeLog.openForRun(
    options.outDir,
    options.resume,
    options.description.dataset,
  );
  const samples = options.samples ?? 1;
  const all = episodeSlots(options.tasks, samples);
  const done = new Set(previous.map(episodeKey));
  const queue: EpisodeSlot[] = all.filter((slot) => !done.has(slot.key));
  const reporters = options.reporters ?? [];
  for (const reporter of reporters) {
    reporter.onRunStart?.({
      description: options.description,
      outDir: options.outDir,
      total: queue.length,
      alreadyDone: all.length - queue.length,
    });
  }
  const finished: EpisodeRecord[] = [...previous];
  let next = 0;
  let interrupted = false;
  let failuresInRow = 0;
  let stopReason: string | undefined;
  const maxFailures = options.maxConsecutiveErrors ?? 5;

  const worker = async () => {
    let env: Env | undefined;
    try {
      while (next < queue.length && stopReason === undefined) {
        if (options.signal?.aborted) {
          interrupted = true;
          return;
        }
        const refusal = options.mayStart?.();
        if (refusal !== undefined) {
          stopReason ??= refusal;
          return;
        }
        const { task, sample } = queue[next++]!;
        env ??= options.createEnv();
        const policy = options.agent.episode(task);
        let record: EpisodeRecord;
        const episodeStart = performance.now();
        try {
          record = withSample(
            await playEpisode(env, task, policy, {
              maxTurns: options.maxTurns,
              scoreEveryTurn: options.agent.scoreEveryTurn ?? options.scoreEveryTurn,
              ...(options.agent.submitAtTurnLimit ? { submitAtTurnLimit: true } : {}),
              dataset: options.description.dataset,
              ...(options.signal ? { signal: options.signal } : {}),
            }),
            sample,
            samples,
          );
        } catch (error) {
          if (error instanceof EpisodeAborted || options.signal?.aborted) {
            interrupted = true;
            return;
          }
          record = withSample(
            failedEpisodeRecord(task, options.description.dataset, error, performance.now() - episodeStart),
            sample,
            samples,
          );
          await env.close().catch(() => {});
          env = undefined;
        } finally {
          await policy.close?.();
        }
        if (options.signal?.aborted) {
          interrupted = true;
          return;
        }
        // Written at once (a killed run keeps it); flushed to disk with the others of the next 20 ms.
        log.write([record]);
        log.durable().catch(() => {});
        finished.push(record);
        for (const reporter of reporters) reporter.onEpisodeEnd?.(record);
        failuresInRow = record.error === undefined ? 0 : failuresInRow + 1;
        if (failuresInRow >= maxFailures && stopReason === undefined) {
          stopReason = `${failuresInRow} episodes in a row failed; the last one: ${record.error}`;
        }
      }
    } finally {
      await env?.close().catch(() => {});
    }
  };

  try {
    await Promise.all(
      Array.from({ length: Math.max(1, Math.min(options.concurrency, queue.length || 1)) }, worker),
    );
  } finally {
    try {
      await log.durable();
    } finally {
      log.close();
    }
  }
  orderEpisodes(finished, options.tasks);
  const played = new Set(finished.map(episodeKey));
  const complete = !interrupted && stopReason === undefined && all.every((slot) => played.has(slot.key));
  // The setting the paper's figures depend on, as the agent and the loop played it.
  const description = {
    ...options.description,
    ...(options.agent.model !== undefined ? { model: options.agent.model } : {}),
    ...(options.agent.strategy !== undefined ? { strategy: options.agent.strategy } : {}),
    maxTurns: options.maxTurns,
  };
  const summary = {
    ...summarize(description, finished, performance.now() - started, complete),
    ...(options.skipped?.length ? { skipped: options.skipped } : {}),
    ...(stopReason !== undefined ? { stopReason } : {}),
  };
  writeFileAtomic(join(options.outDir, 'summary.json'), `${JSON.stringify(summary, null, 2)}\n`);
  const end = {
    summary,
    episodes: finished,
    outDir: options.outDir,
    interrupted,
    ...(stopReason ? { stopReason } : {}),
  };
  for (const reporter of reporters) reporter.onRunEnd?.(end);
  return end;
}
