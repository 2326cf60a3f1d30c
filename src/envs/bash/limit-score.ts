import type { Score } from '../../core/env.js';

/** Reward 0 for a state the scorer could not walk within its bounds, with the reason. */
export function limitScore(reason: string): Score {
  return { value: 0, details: { scoreLimit: reason }, scoreLimit: reason };
}
