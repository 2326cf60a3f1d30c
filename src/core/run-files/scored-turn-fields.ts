import type { Score } from '../env.js';
import { boundDetails } from './bound-details.js';

/**
 * The fields a turn record keeps of the turn's score: its reward `parts` and its `details`
 * (JSON-safe and bounded, see `boundDetails`); none without a score.
 */
export function scoredTurnFields(score: Score | undefined): {
  parts?: Readonly<Record<string, number>>;
  details?: Record<string, unknown>;
} {
  if (score === undefined) return {};
  const details = boundDetails(score.details);
  return {
    ...(score.parts ? { parts: { ...score.parts } } : {}),
    ...(details ? { details } : {}),
  };
}
