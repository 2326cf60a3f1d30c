import { describe, expect, it } from 'vitest';
import { formatGitStatus, parseGitStatus, pythonSplit } from '../../../../src/envs/bash/reward/git-status.js';

describe('parseGitStatus', () => {
  it('reads one (path, status) pair per ordinary line', () => {
    const text =
      '?? testbed/x.txt\n M testbed/dir1/textfile1.txt\nD  testbed/gone.txt\nA  new.txt\n?? backup/\n';
    expect(parseGitStatus(text)).toEqual([
      { path: 'testbed/x.txt', status: '??' },
      { path: 'testbed/dir1/textfile1.txt', status: 'M' },
      { path: 'testbed/gone.txt', status: 'D' },
      { path: 'new.txt', status: 'A' },
      { path: 'backup/', status: '??' },
    ]);
    expect(parseGitStatus('MM both.txt\n')).toEqual([{ path: 'both.txt', status: 'MM' }]);
  });

  it('returns nothing for a clean tree', () => {
    expect(parseGitStatus('')).toEqual([]);
    expect(parseGitStatus('\n  \n')).toEqual([]);
  });

  it('keeps quoted names as git prints them', () => {
    expect(parseGitStatus('?? "Icon\\r"\n')).toEqual([{ path: '"Icon\\r"', status: '??' }]);
  });

  it('shifts the pairing after a name with a space, as upstream does', () => {
    // Logged gpt-4 fs_2 task 5 shows such pairs, e.g. ("D", "system/...") and ('text4.txt"', '"system/folder3/special').
    const text = ' D "system/folder3/special text4.txt"\n D "system/folder2/special text2.txt"\n';
    expect(parseGitStatus(text)).toEqual([
      { path: '"system/folder3/special', status: 'D' },
      { path: 'D', status: 'text4.txt"' },
      { path: 'text2.txt"', status: '"system/folder2/special' },
    ]);
    // A rename line is four tokens.
    expect(parseGitStatus('R  old.txt -> new.txt\n')).toEqual([
      { path: 'old.txt', status: 'R' },
      { path: 'new.txt', status: '->' },
    ]);
  });

  it('throws on an odd number of tokens (upstream raises IndexError)', () => {
    expect(() => parseGitStatus('?? "a b.txt"\n')).toThrow(RangeError);
    expect(() => parseGitStatus('R  old.txt -> new.txt\n?? "c d"\n')).toThrow(RangeError);
  });

  it('splits on Python whitespace, not on JavaScript \\s', () => {
    expect(pythonSplit(' a\tb\u001fc\u0085d\u3000e ')).toEqual(['a', 'b', 'c', 'd', 'e']);
    expect(pythonSplit('a\ufeffb')).toEqual(['a\ufeffb']); // U+FEFF is \s in JS but not str.isspace()
    expect(pythonSplit('')).toEqual([]);
  });
});

describe('formatGitStatus', () => {
  it('round-trips through parseGitStatus', () => {
    const entries = [
      { path: 'testbed/x.txt', status: '??' },
      { path: 'a.txt', status: 'M' },
      { path: 'b.txt', status: 'D' },
    ];
    expect(formatGitStatus(entries)).toBe('?? testbed/x.txt\nM  a.txt\nD  b.txt\n');
    expect(parseGitStatus(formatGitStatus(entries))).toEqual(entries);
    expect(formatGitStatus([])).toBe('');
  });
});
