import { describe, expect, it } from 'vitest';
import type { CodeResult } from '../../../src/envs/python/driver-messages.js';
import { mbppScore } from '../../../src/envs/python/mbpp-reward.js';

const pass: CodeResult = { output: '', error: '', ok: true };
const failedAssert: CodeResult = { output: null, error: 'Error: ', ok: false };
const nameError: CodeResult = { output: null, error: "Error: name 'f' is not defined", ok: false };
const printed: CodeResult = { output: '3', error: '', ok: true };

describe('mbppScore (upstream: share of tests whose result dict equals the gold one)', () => {
  it('counts agreement with the gold, not passing', () => {
    const tests = ['t1', 't2', 't3'];
    const score = mbppScore(tests, [pass, failedAssert, failedAssert], [pass, failedAssert, pass], {}, false);
    expect(score.value).toBeCloseTo(2 / 3, 12);
    expect(score.parts).toEqual({ agreement: 2 / 3, passRate: 1 / 3, tests: 3 });
    const details = score.details as { tests: { agrees: boolean; passed: boolean }[]; testsAgreeing: number };
    expect(details.tests.map((test) => [test.agrees, test.passed])).toEqual([
      [true, true],
      [true, false],
      [false, false],
    ]);
    expect(details.testsAgreeing).toBe(2);
    expect(score.goldCorrupt).toBeUndefined();
  });

  it('compares output and error exactly: different errors, or output against none, disagree', () => {
    expect(mbppScore(['t'], [nameError], [failedAssert], {}, false).value).toBe(0);
    expect(mbppScore(['t'], [printed], [pass], {}, false).value).toBe(0);
    expect(mbppScore(['t'], [printed], [printed], {}, false).value).toBe(1);
    expect(
      mbppScore(['a', 'b', 'c', 'd'], [pass, pass, pass, nameError], [pass, pass, pass, pass], {}, false)
        .value,
    ).toBe(0.75);
  });

  it("records the gold's run of the tests as a session transcript (goldOutput)", () => {
    const score = mbppScore(['t1', 't2', 't3'], [pass, pass, pass], [pass, printed, nameError], {}, false);
    expect(score.details?.goldOutput).toBe(">>> t1\n>>> t2\n3\n>>> t3\nError: name 'f' is not defined");
    expect(mbppScore([], [], [], {}, false).details?.goldOutput).toBe('');
  });

  it('passes the corrupt flag and the details through; no tests score 0', () => {
    const score = mbppScore(['t'], [pass], [failedAssert], { submittedFunction: 'f' }, true);
    expect(score).toMatchObject({ value: 0, goldCorrupt: true, details: { submittedFunction: 'f' } });
    expect(mbppScore([], [], [], {}, false).value).toBe(0);
  });
});
