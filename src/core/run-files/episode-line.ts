import type { EpisodeRecord } from './episode-record-schema.js';

/**
 * The `schemaVersion` of the lines of `episodes.jsonl` this build writes. Lines written before the
 * field existed have none and are version 1 by definition.
 */
export const EPISODE_RECORD_VERSION = 1;

/** The line of `episodes.jsonl` for `record`: `schemaVersion` first, then the record's fields. */
export function episodeLine(record: EpisodeRecord): string {
  return `${JSON.stringify({ schemaVersion: EPISODE_RECORD_VERSION, ...record })}\n`;
}

/** The identity of an episode in a run: its task and its sample. */
export function episodeKey(record: {
  readonly taskId: string;
  readonly sample?: number | undefined;
}): string {
  return `${record.taskId}#${record.sample ?? 0}`;
}
