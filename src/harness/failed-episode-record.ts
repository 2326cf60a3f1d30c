import type { EpisodeRecord } from '../core/run-files/episode-record-schema.js';
import type { Task } from '../core/task.js';

/**
 * The record of an episode that could not be played (an infrastructure failure: the env did not
 * start, the sandbox died): no turns, reward 0, the error's message. The metrics leave it out (it
 * says nothing of the agent) and `--resume` plays it again.
 */
export function failedEpisodeRecord(
  task: Task,
  dataset: string,
  error: unknown,
  durationMs: number,
): EpisodeRecord {
  return {
    taskId: task.id,
    index: task.index,
    dataset,
    query: task.query,
    ...(task.gold !== undefined ? { gold: task.gold } : {}),
    turns: [],
    reward: 0,
    maxReward: 0,
    success: false,
    turnsTaken: 0,
    terminated: false,
    truncated: false,
    error: (error as Error | null | undefined)?.message ?? String(error),
    ...(task.group !== undefined ? { group: task.group } : {}),
    durationMs,
  };
}
