import { describe, expect, it } from 'vitest';
import {
  referenceFunctionName,
  submitName,
  submittedFunctionName,
} from '../../../src/envs/python/function-names.js';

describe('function names of the Python env', () => {
  it('takes the submitted function of a Try Again turn only from an action that starts with def', () => {
    expect(submittedFunctionName('def area(r):\n    return 3 * r * r')).toBe('area');
    expect(submittedFunctionName('def outer(x):\n    def inner(y):\n        return y\n    return x')).toBe(
      'outer',
    );
    expect(submittedFunctionName('import math\ndef area(r):\n    return r')).toBeUndefined();
    expect(submittedFunctionName(' def area(r): return r')).toBeUndefined();
    expect(submittedFunctionName('def area (r): return r')).toBeUndefined();
    expect(submittedFunctionName('area(2)')).toBeUndefined();
  });

  it("binds the gold's first def, as upstream's search did, with a fallback for `def name (`", () => {
    expect(referenceFunctionName('R = 3\r\ndef min_cost(cost, m, n): \r\n\treturn 0')).toBe('min_cost');
    expect(referenceFunctionName('def helper(x):\n  return x\ndef main_one(y):\n  return y')).toBe('helper');
    expect(referenceFunctionName('import math \r\ndef max_Prime_Factors (n): \r\n    return n')).toBe(
      'max_Prime_Factors',
    );
    expect(referenceFunctionName('x = 1')).toBeUndefined();
  });

  it('reads the name of `submit <name>` as the first word, as upstream split on a space', () => {
    expect(submitName('area')).toBe('area');
    expect(submitName('area extra words')).toBe('area');
    expect(submitName(undefined)).toBeUndefined();
    expect(submitName('')).toBeUndefined();
  });
});
