import type { Score } from '../../core/env.js';
import type { CodeResult } from './driver-messages.js';
import { observationText } from './observation-text.js';

/** Upstream's result dict of one test: `{output, error}`, or `{error}` alone when the test raised. */
export interface TestOutcome {
  readonly output: string | null;
  readonly error: string;
}

export interface TestComparison {
  readonly test: string;
  readonly agent: TestOutcome;
  readonly gold: TestOutcome;
  /** Agent and gold results are equal dicts: what upstream's reward counts. */
  readonly agrees: boolean;
  /** The agent's run of the test raised nothing (a plain pass). */
  readonly passed: boolean;
}

/**
 * What the gold's run of the tests showed, as a session would: each test after `>>> `, then the
 * observation its run gave (output and error; nothing when it passed silently).
 */
export function goldTestsOutput(comparisons: readonly TestComparison[]): string {
  return comparisons
    .map(({ test, gold }) => {
      const seen = observationText(gold, false);
      return seen === '' ? `>>> ${test}` : `>>> ${test}\n${seen}`;
    })
    .join('\n');
}

export function outcomeOf(result: CodeResult): TestOutcome {
  return { output: result.output, error: result.error };
}

/**
 * MBPP reward as upstream computes it: the share of tests whose result dict (output and error) is
 * equal for the submitted function and for the gold function. Plain passes are reported beside it.
 */
export function mbppScore(
  tests: readonly string[],
  agent: readonly CodeResult[],
  gold: readonly CodeResult[],
  details: Readonly<Record<string, unknown>>,
  goldCorrupt: boolean,
): Score {
  const comparisons: TestComparison[] = tests.map((test, index) => {
    const a = agent[index];
    const g = gold[index];
    const agentOutcome = a ? outcomeOf(a) : { output: null, error: 'Error: not run' };
    const goldOutcome = g ? outcomeOf(g) : { output: null, error: 'Error: not run' };
    return {
      test,
      agent: agentOutcome,
      gold: goldOutcome,
      agrees: agentOutcome.output === goldOutcome.output && agentOutcome.error === goldOutcome.error,
      passed: a?.ok === true,
    };
  });
  const total = comparisons.length;
  const agreeing = comparisons.filter((comparison) => comparison.agrees).length;
  const passed = comparisons.filter((comparison) => comparison.passed).length;
  // Upstream divided by the number of tests; a task without tests would have raised there.
  const value = total === 0 ? 0 : agreeing / total;
  return {
    value,
    parts: { agreement: value, passRate: total === 0 ? 0 : passed / total, tests: total },
    details: {
      ...details,
      tests: comparisons,
      testsAgreeing: agreeing,
      testsPassed: passed,
      goldOutput: goldTestsOutput(comparisons),
    },
    ...(goldCorrupt ? { goldCorrupt: true } : {}),
  };
}
