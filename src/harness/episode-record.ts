import type { TurnRecord } from '../agents/agent.js';

/** One line of `episodes.jsonl` (DESIGN §8). */
export interface EpisodeRecord {
  readonly taskId: string;
  readonly index: number;
  readonly dataset: string;
  readonly query: string;
  readonly gold?: unknown;
  readonly turns: readonly TurnRecord[];
  /** Reward of the last scored turn. */
  readonly reward: number;
  readonly maxReward: number;
  /** maxReward == 1. */
  readonly success: boolean;
  readonly turnsTaken: number;
  readonly terminated: boolean;
  readonly truncated: boolean;
  /** The episode could not be played (an infrastructure failure); it counts as unsolved. */
  readonly error?: string;
  readonly group?: string;
  /** The env replaced a wrong upstream gold (`gold` is then the corrected one): what and why. */
  readonly erratum?: unknown;
  /** The gold itself failed, so the reward cannot be trusted. */
  readonly goldCorrupt?: boolean;
  readonly durationMs: number;
}
