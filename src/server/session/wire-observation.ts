import type { Observation } from '../../core/env.js';
import type { ObservationProfile, WireObservation } from './wire-schemas.js';

/**
 * An env's observation as the wire carries it: the `coding` profile (stdout, stderr, exit code) of
 * OpenEnv's coding environments, or ours (output, exit code, timeout, task, turn, instruction).
 */
export function wireObservation(
  observation: Observation,
  episode: { readonly taskId: string; readonly steps: number },
  instruction: string | null,
  profile: ObservationProfile,
): WireObservation {
  if (profile === 'coding') {
    return { stdout: observation.text, stderr: '', exit_code: observation.exitCode ?? 0 };
  }
  return {
    output: observation.text,
    exit_code: observation.exitCode ?? null,
    timed_out: observation.timedOut === true,
    task_id: episode.taskId,
    turn: episode.steps,
    instruction,
  };
}
