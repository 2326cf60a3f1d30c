import type { CostBudget } from '../agents/llm/cost-budget.js';
import type { Task } from '../core/task.js';
import type { EpisodeRecord } from '../harness/episode-record.js';
import type { Reporter } from '../harness/reporter.js';
import type { RunDescription, SkippedTask } from '../harness/run-summary.js';
import type { PrefixSink } from './episode-result.js';
import type { RunMeta } from './run-meta.js';

/** What `gatherRun` needs: the queue, the run's episodes and directory, and whom to tell. */
export interface GatherOptions {
  readonly redisUrl: string;
  readonly queue: string;
  readonly tasks: readonly Task[];
  /** Episodes per task. */
  readonly samples: number;
  readonly skipped?: readonly SkippedTask[];
  /** The summary's description of the run (agent, model, strategy, maxTurns included). */
  readonly description: RunDescription;
  /** The run's meta for the workers, without its run id (this run's). */
  readonly meta: Omit<RunMeta, 'runId'>;
  readonly outDir: string;
  readonly resume: boolean;
  /** Tries of an episode that fails for infrastructure reasons before it is recorded as failed. */
  readonly maxAttempts: number;
  readonly signal?: AbortSignal;
  readonly reporters?: readonly Reporter[];
  /** A worker refused the run (told once per worker and reason). */
  readonly onRefusal?: (worker: string, reason: string) => void;
  /** Workers announced now, and seen since the run started. */
  readonly onWorkers?: (live: number, seen: number) => void;
  /**
   * Where the prompt prefixes of language-model results go (the run directory's `prefixes.json`),
   * added before their record is appended; a name whose messages do not hash to it throws.
   */
  readonly prefixes?: PrefixSink;
  /**
   * The run's cost cap (`--max-cost`), the local rule: before an episode is enqueued, the spend of the
   * gathered episodes plus the costliest so far for each episode in the queue and one more must stay
   * under the cap. Until an episode has cost anything, at most the live workers' capacity is queued.
   * Once it refuses, the waiting jobs are removed, those being played are gathered, and the run ends
   * with `stopReason`.
   */
  readonly budget?: CostBudget;
  /** Redis went away (told once until it is back). */
  readonly onRedisLost?: (reason: string) => void;
  /** How often jobs that failed for good and the workers are looked for, ms (default 1000). */
  readonly scanIntervalMs?: number;
  /** At most this many episodes in the queue at once (default: all); the bench measures latency with 1. */
  readonly maxOutstanding?: number;
  /**
   * Told of each gathered episode with when (performance.now()) it was enqueued, its result received,
   * and appended to the log (flushed to disk).
   */
  readonly onGathered?: (
    record: EpisodeRecord,
    times: { readonly enqueuedAt: number; readonly receivedAt: number; readonly appendedAt: number },
  ) => void;
}
