import type { EpisodeRecord } from '../../src/harness/episode-record.js';

/**
 * Episode records shaped as `intercode run` writes them (a demo/bash gold run), for tests of the
 * readers of run files. `old` is the line of a run written before `schemaVersion` existed.
 */
export function sampleRecord(taskId: string, options: Partial<EpisodeRecord> = {}): EpisodeRecord {
  const reward = options.maxReward ?? 1;
  return {
    taskId,
    index: 0,
    dataset: 'demo/bash',
    query: `How many files does ${taskId} count?`,
    gold: 'ls | wc -l',
    turns: [
      {
        action: 'ls | wc -l',
        observation: '5\n',
        reward,
        admissible: true,
        durationMs: 12.5,
        parts: { file_diff: 0.33, file_changes: 0.33, answer_similarity: 0.33 },
      },
    ],
    reward,
    maxReward: reward,
    success: reward === 1,
    turnsTaken: 1,
    terminated: true,
    truncated: false,
    group: 'search',
    durationMs: 40.25,
    ...options,
  };
}

/** The line of `record` as a run of an earlier version wrote it: no `schemaVersion`. */
export function oldLine(record: EpisodeRecord): string {
  return `${JSON.stringify(record)}\n`;
}
