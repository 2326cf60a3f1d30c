import { describe, expect, it } from 'vitest';
import { tfidfCosine, tfidfTokens } from '../../../../src/envs/bash/reward/tfidf-cosine.js';

const IDF_ONE_DOC = 1 + Math.log(1.5);

describe('tfidfTokens', () => {
  it('lowercases and keeps runs of two or more word characters', () => {
    expect(tfidfTokens('Hello, WORLD! a b c')).toEqual(['hello', 'world']);
    expect(tfidfTokens('_a ab-cd 42 7 x_1')).toEqual(['_a', 'ab', 'cd', '42', 'x_1']);
    expect(tfidfTokens('/testbed/dir1/file.txt\n')).toEqual(['testbed', 'dir1', 'file', 'txt']);
    expect(tfidfTokens('2\n')).toEqual([]);
    expect(tfidfTokens('')).toEqual([]);
  });

  it('treats letters and numbers of any script as word characters, as Python re does', () => {
    // Expected values from Python 3.11: re.findall(r'(?u)\b\w\w+\b', s.lower())
    expect(tfidfTokens('naïve café')).toEqual(['naïve', 'café']);
    expect(tfidfTokens('\u0661\u0662 \u4e2d\u6587')).toEqual(['\u0661\u0662', '\u4e2d\u6587']);
    expect(tfidfTokens('ΟΔΟΣ ΣΑΣ')).toEqual(['οδος', 'σας']); // final sigma, like str.lower
    expect(tfidfTokens('½¾ ²³ Ⅻ')).toEqual(['½¾', '²³']);
    expect(tfidfTokens('foo\u00a0bar\u200bbaz')).toEqual(['foo', 'bar', 'baz']);
  });

  it('splits at combining marks, which Python does not count as word characters', () => {
    expect(tfidfTokens('cafe\u0301 x\u0301y')).toEqual(['cafe']);
    expect(tfidfTokens('İstanbul')).toEqual(['stanbul']); // lower() gives i + U+0307
  });

  it('counts length in code points', () => {
    expect(tfidfTokens('\u{1D400}')).toEqual([]);
    expect(tfidfTokens('\u{1D400} \u{1D400}\u{1D401}')).toEqual(['\u{1D400}\u{1D401}']);
  });
});

describe('tfidfCosine', () => {
  it('returns null when neither text has a token (where scikit-learn raises)', () => {
    expect(tfidfCosine('', '')).toBeNull();
    expect(tfidfCosine('2\n', '3\n')).toBeNull();
    expect(tfidfCosine('a b c', '. , !')).toBeNull();
  });

  it('is 0 when only one text has tokens (the other row stays zero)', () => {
    expect(tfidfCosine('hello', '')).toBe(0);
    expect(tfidfCosine('', 'hello world')).toBe(0);
    expect(tfidfCosine('foo', 'bar')).toBe(0);
  });

  it('ignores order, case, punctuation, single characters and repetition of the same mix', () => {
    expect(tfidfCosine('hello world', 'World, HELLO!')).toBeCloseTo(1, 15);
    expect(tfidfCosine('abc abc abc', 'abc')).toBeCloseTo(1, 15);
    expect(tfidfCosine('x y file.txt', 'file txt')).toBeCloseTo(1, 15);
  });

  it('weights terms found in one text by 1 + ln 1.5', () => {
    // rows: foo = 1, bar / baz = idf1 each; cosine = 1 / (1 + idf1²)
    expect(tfidfCosine('foo bar', 'foo baz')).toBeCloseTo(1 / (1 + IDF_ONE_DOC ** 2), 15);
    // counts: a = [foo: 2, bar: 1], b = [foo: 1]
    const expected = 2 / Math.sqrt(4 + IDF_ONE_DOC ** 2);
    expect(tfidfCosine('foo foo bar', 'foo')).toBeCloseTo(expected, 15);
  });

  it('reproduces logged similarities bit for bit', () => {
    // As in the logged gpt-3.5 fs_1 task 0: the agent printed the gold's line three times.
    const hash = 'f2ca1bb6c7e907d06dafe4687e579fce  /testbed/hello.txt\n';
    expect(tfidfCosine(hash.repeat(3), hash)).toBeCloseTo(1, 15);
    // Logged info.answer_similarity values (gpt-3.5 P&S fs_3 #47, fs_4 #5, gpt-4 fs_2 #42 and #4).
    expect(tfidfCosine('185 bytes\n', '185\n')).toBe(0.5797386715376657);
    expect(tfidfCosine('  PID  PPID COMMAND\n    1     0 /bin/bash\n', 'bash\n')).toBe(0.33517574332792605);
    expect(tfidfCosine('2023-05-26\n', 'Fri May 26 09:22:45 UTC 2023 1\n')).toBe(0.26951761324603224);
    expect(tfidfCosine('/system\n/system/folder1\n', 'xargs: /system: Permission denied\n')).toBe(
      0.3108907746813972,
    );
  });
});
