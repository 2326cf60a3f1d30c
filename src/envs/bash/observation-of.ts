import type { Observation } from '../../core/env.js';
import type { ExecResult } from '../../sandbox/sandbox.js';

/** The observation of a command's result; a timed-out command's output says so at its end. */
export function observationOf(result: ExecResult, timeoutMs: number): Observation {
  const text = result.timedOut
    ? `${result.output}${result.output.endsWith('\n') || result.output === '' ? '' : '\n'}[command timed out after ${timeoutMs / 1000} s]\n`
    : result.output;
  return {
    text,
    durationMs: result.durationMs,
    ...(result.exitCode !== null ? { exitCode: result.exitCode } : {}),
    ...(result.truncated ? { truncated: result.truncated } : {}),
    ...(result.timedOut ? { timedOut: true } : {}),
  };
}
