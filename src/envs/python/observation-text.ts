import type { CodeResult } from './driver-messages.js';

export const RESTARTED =
  '[the interpreter was restarted: the variables and functions defined so far are gone]';

/** Upstream's observation: the output and the error; only the error when the code raised. */
export function observationText(result: Pick<CodeResult, 'output' | 'error'>, restarted: boolean): string {
  const text =
    result.output === null
      ? result.error
      : [result.output, result.error].filter((part) => part !== '').join('\n');
  return restarted ? (text === '' ? RESTARTED : `${text}\n${RESTARTED}`) : text;
}
