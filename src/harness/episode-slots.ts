import { episodeKey } from '../core/run-files/episode-line.js';
import type { Task } from '../core/task.js';
import type { EpisodeRecord } from './episode-record.js';

/** One episode a run plays: a task and which of its samples (`--samples N`: 0 … N-1). */
export interface EpisodeSlot {
  readonly task: Task;
  readonly sample: number;
  /** The episode's identity in the run (`episodeKey`): resume and dedupe go by it. */
  readonly key: string;
}

/** Every episode of a run, task by task, each task's samples in order. */
export function episodeSlots(tasks: readonly Task[], samples: number): EpisodeSlot[] {
  return tasks.flatMap((task) =>
    Array.from({ length: samples }, (_, sample) => ({
      task,
      sample,
      key: episodeKey({ taskId: task.id, sample }),
    })),
  );
}

/**
 * The record with its sample: a run of several samples per task marks every record (sample 0 too);
 * a run of one leaves the field out, as records always did.
 */
export function withSample(record: EpisodeRecord, sample: number, samples: number): EpisodeRecord {
  if (samples <= 1 && sample === 0) return record;
  const { taskId, index, ...rest } = record;
  return { taskId, index, sample, ...rest };
}

/** Sorts records in place into the run's order: by task (as `tasks` lists them), then sample. */
export function orderEpisodes(records: EpisodeRecord[], tasks: readonly Task[]): void {
  const order = new Map(tasks.map((task, position) => [task.id, position]));
  records.sort(
    (a, b) => (order.get(a.taskId) ?? 0) - (order.get(b.taskId) ?? 0) || (a.sample ?? 0) - (b.sample ?? 0),
  );
}
