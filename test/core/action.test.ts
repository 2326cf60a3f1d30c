import { describe, expect, it } from 'vitest';
import { formatAction, parseAction, toAction } from '../../src/core/action.js';
import { EnvError } from '../../src/core/errors.js';

describe('parseAction', () => {
  it('reads bare submit and skip as control actions', () => {
    expect(parseAction('submit')).toEqual({ type: 'submit' });
    expect(parseAction('  skip \n')).toEqual({ type: 'skip' });
  });

  it('keeps the whole rest of the line as the answer, inner spaces included', () => {
    expect(parseAction('submit picoCTF{a b  c}')).toEqual({ type: 'submit', answer: 'picoCTF{a b  c}' });
    expect(parseAction('submit   fn_name  ')).toEqual({ type: 'submit', answer: 'fn_name' });
  });

  it('treats everything else as code, unchanged', () => {
    expect(parseAction('ls -la')).toEqual({ type: 'code', code: 'ls -la' });
    expect(parseAction('submitted_files=3')).toEqual({ type: 'code', code: 'submitted_files=3' });
    expect(parseAction('skipper')).toEqual({ type: 'code', code: 'skipper' });
    expect(parseAction('  echo hi  ')).toEqual({ type: 'code', code: '  echo hi  ' });
  });

  it('round-trips through formatAction', () => {
    for (const text of ['submit', 'submit x y', 'skip', 'echo hi']) {
      expect(formatAction(parseAction(text))).toBe(text);
    }
  });
});

describe('toAction', () => {
  it('validates object actions', () => {
    expect(toAction({ type: 'code', code: 'x' })).toEqual({ type: 'code', code: 'x' });
    expect(() => toAction({ type: 'run' } as never)).toThrow(EnvError);
    expect(() => toAction({ type: 'code', code: 5 } as never)).toThrow(/string "code"/);
  });
});
