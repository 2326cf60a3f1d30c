import type { Score, StepResult } from '../../core/env.js';
import { submitName } from './function-names.js';

/**
 * The step result of `submit <function-name>`: the episode ends with the MBPP score of the function
 * (`evaluate`), or with 0 when no function is named.
 */
export async function submissionStep(
  answer: string | undefined,
  evaluate: (name: string) => Promise<Score>,
): Promise<StepResult> {
  const started = performance.now();
  const name = submitName(answer);
  if (name === undefined) {
    return {
      observation: {
        text: 'submit needs the name of the function to test: submit <function-name>',
        durationMs: 0,
      },
      reward: 0,
      terminated: true,
      truncated: false,
      info: { admissible: false, score: { value: 0, details: { reason: 'no function name' } } },
    };
  }
  const score = await evaluate(name);
  const details = score.details as { testsAgreeing?: number; testsPassed?: number } | undefined;
  const total = score.parts?.tests ?? 0;
  const text = `submitted ${name}: ${details?.testsAgreeing ?? 0} of ${total} tests agree with the reference solution (${details?.testsPassed ?? 0} passed)`;
  return {
    observation: { text, durationMs: performance.now() - started },
    reward: score.value,
    terminated: true,
    truncated: false,
    info: { admissible: true, score },
  };
}
