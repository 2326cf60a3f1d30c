import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ShlexError, shlexSplit } from '../../../src/envs/bash/shlex-split.js';

/** Python's shlex.split on tricky inputs, from /usr/bin/python3 (test/fixtures/generate-shlex-fixtures.py). */
interface SplitCase {
  readonly input: string;
  readonly words: string[] | null;
  readonly error?: string;
}

const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/shlex-cases.json', import.meta.url), 'utf8'),
) as { split: SplitCase[] };

describe('shlexSplit', () => {
  it('covers the cases the fixture was generated for', () => {
    expect(fixture.split.length).toBeGreaterThanOrEqual(40);
    expect(fixture.split.filter((c) => c.words === null).length).toBeGreaterThanOrEqual(5);
  });

  it.each(fixture.split.map((c) => [JSON.stringify(c.input), c] as const))(
    'splits %s as Python does',
    (_name, c) => {
      if (c.words === null) {
        expect(() => shlexSplit(c.input)).toThrow(ShlexError);
        expect(() => shlexSplit(c.input)).toThrow(c.error);
      } else {
        expect(shlexSplit(c.input)).toEqual(c.words);
      }
    },
  );
});
