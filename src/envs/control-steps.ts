import type { Score, StepResult } from '../core/env.js';

/** The step result of `skip`: the episode ends with reward 0. */
export function skipStep(): StepResult {
  return {
    observation: { text: 'skipped', durationMs: 0 },
    reward: 0,
    terminated: true,
    truncated: false,
    info: { admissible: true },
  };
}

/** The step result of `submit`: the episode ends with the score of its final state. */
export async function submitStep(score: () => Promise<Score>, text: string): Promise<StepResult> {
  const started = performance.now();
  const result = await score();
  return {
    observation: { text, durationMs: performance.now() - started },
    reward: result.value,
    terminated: true,
    truncated: false,
    info: { admissible: true, score: result },
  };
}
