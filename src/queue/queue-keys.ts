import { UsageError } from '../core/errors.js';

/** The default BullMQ queue of `intercode run --redis` and `intercode worker` (`--queue NAME`). */
export const DEFAULT_QUEUE = 'intercode';

/** Checks a `--queue` name: BullMQ keys are `bull:<name>:…`, so no ':' and nothing empty. */
export function checkQueueName(name: string): string {
  if (!/^[\w.-]+$/.test(name))
    throw new UsageError(`--queue ${name}: use letters, digits, '.', '_' and '-' only`);
  return name;
}

/** The Redis keys intercode keeps next to a queue's BullMQ keys. */
export class QueueKeys {
  readonly prefix: string;

  constructor(queue: string) {
    this.prefix = `intercode:${queue}`;
  }

  /** The run's meta (JSON): what every worker needs to play its episodes. */
  run(runId: string): string {
    return `${this.prefix}:run:${runId}`;
  }

  /** The stream of the run's results, which workers append to and the gathering run reads. */
  results(runId: string): string {
    return `${this.prefix}:run:${runId}:results`;
  }

  /** Hash worker → reason: the workers that refused the run's episodes. */
  refusals(runId: string): string {
    return `${this.prefix}:run:${runId}:refusals`;
  }

  /** A worker's announcement (JSON, with a time to live its worker refreshes). */
  worker(workerId: string): string {
    return `${this.prefix}:workers:${workerId}`;
  }

  /** The pattern matching every announcement of the queue. */
  workersPattern(): string {
    return `${this.prefix}:workers:*`;
  }
}

/** What a job of an episode carries (the run's meta holds the rest). */
export interface EpisodeJobData {
  readonly runId: string;
  readonly taskIndex: number;
  readonly taskId: string;
  readonly sample: number;
}

/** The job id of an episode: BullMQ ids may not hold ':', so the parts are joined by '.'. */
export function episodeJobId(runId: string, taskIndex: number, sample: number): string {
  return `${runId}.${taskIndex}.${sample}`;
}

/** A fresh run id: time and randomness, no '.' or ':' (it is the first part of the job ids). */
export function newRunId(): string {
  const time = Date.now().toString(36);
  const random = Math.floor(Math.random() * 36 ** 6)
    .toString(36)
    .padStart(6, '0');
  return `r${time}${random}`;
}
