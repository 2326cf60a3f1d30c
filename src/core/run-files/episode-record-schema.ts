import { z } from 'zod';
import type { VersionedFormat } from './versioned-format.js';

/**
 * The `schemaVersion` of the lines of `episodes.jsonl` this build writes. Lines written before the
 * field existed have none and are version 1 by definition.
 */
export const EPISODE_RECORD_VERSION = 1;

/** One finished turn of an episode in `episodes.jsonl` (the agents' `TurnRecord`). */
export const turnRecordSchema = z.object({
  action: z.string(),
  observation: z.string(),
  reward: z.number(),
  admissible: z.boolean(),
  durationMs: z.number(),
  /** Reward parts of this turn's score, when the env reports them. */
  parts: z.record(z.string(), z.number()).readonly().optional(),
});

/**
 * One line of `episodes.jsonl` (DESIGN §8), without its `schemaVersion`: the file format's single
 * source of truth, from which `EpisodeRecord` is inferred.
 */
export const episodeRecordSchema = z.object({
  taskId: z.string(),
  index: z.int().min(0),
  dataset: z.string(),
  query: z.string(),
  gold: z.unknown().optional(),
  turns: z.array(turnRecordSchema.readonly()).readonly(),
  /** Reward of the last scored turn. */
  reward: z.number(),
  maxReward: z.number(),
  /** maxReward == 1. */
  success: z.boolean(),
  turnsTaken: z.int().min(0),
  terminated: z.boolean(),
  truncated: z.boolean(),
  /** The episode could not be played (an infrastructure failure); it counts as unsolved. */
  error: z.string().optional(),
  group: z.string().optional(),
  /** The env replaced a wrong upstream gold (`gold` is then the corrected one): what and why. */
  erratum: z.unknown().optional(),
  /** The gold itself failed, so the reward cannot be trusted. */
  goldCorrupt: z.boolean().optional(),
  /** The scorer stopped at one of its bounds on the last scored turn that met one (reward 0 there): why. */
  scoreLimit: z.string().optional(),
  durationMs: z.number(),
});

/** One finished episode: a line of `episodes.jsonl` without its `schemaVersion`. */
export type EpisodeRecord = Readonly<z.infer<typeof episodeRecordSchema>>;

/** A turn of an `EpisodeRecord`. */
export type TurnRecordData = EpisodeRecord['turns'][number];

export const episodeRecordFormat: VersionedFormat<EpisodeRecord> = {
  what: 'episode record',
  version: EPISODE_RECORD_VERSION,
  schema: episodeRecordSchema,
};

/** The line of `episodes.jsonl` for `record`: `schemaVersion` first, then the record's fields. */
export function episodeLine(record: EpisodeRecord): string {
  return `${JSON.stringify({ schemaVersion: EPISODE_RECORD_VERSION, ...record })}\n`;
}
