import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  compareCodePoints,
  kendallTauB,
  kendallTauCounts,
  kendallTauCountsOfSelf,
  kendallTauFromCounts,
} from '../../../../src/envs/sql/reward/kendall-tau.js';

/** From scipy.stats.kendalltau (test/fixtures/generate-sql-reward-fixtures.py). */
const fixture = JSON.parse(
  readFileSync(new URL('../../../fixtures/sql-reward-cases.json', import.meta.url), 'utf8'),
) as { meta: { scipy: string }; kendall: [string[], string[], number | null][] };

/** Brute-force O(n²) pair counts straight from the definitions. */
function naiveCounts(x: readonly string[], y: readonly string[]) {
  let xtie = 0;
  let ytie = 0;
  let ntie = 0;
  let dis = 0;
  let con = 0;
  for (let i = 0; i < x.length; i += 1) {
    for (let j = i + 1; j < x.length; j += 1) {
      const dx = Math.sign(compareCodePoints(x[i] as string, x[j] as string));
      const dy = Math.sign(compareCodePoints(y[i] as string, y[j] as string));
      if (dx === 0) xtie += 1;
      if (dy === 0) ytie += 1;
      if (dx === 0 && dy === 0) ntie += 1;
      if (dx * dy < 0) dis += 1;
      if (dx * dy > 0) con += 1;
    }
  }
  return { xtie, ytie, ntie, dis, con };
}

describe('compareCodePoints', () => {
  it('orders by code point, not UTF-16 unit', () => {
    expect(compareCodePoints('a', 'b')).toBeLessThan(0);
    expect(compareCodePoints('ab', 'a')).toBeGreaterThan(0);
    expect(compareCodePoints('x', 'x')).toBe(0);
    expect(compareCodePoints('', 'a')).toBeLessThan(0);
    // U+FFFF < U+1F600 by code point, but '\uffff' > '\ud83d' as UTF-16 units.
    expect('\uffff' > '😀').toBe(true);
    expect(compareCodePoints('\uffff', '😀')).toBeLessThan(0);
    expect(compareCodePoints('\ue000', '\u{10000}')).toBeLessThan(0);
    expect(compareCodePoints('\ud7ff', '\u{10000}')).toBeLessThan(0);
    expect(compareCodePoints('(10,)', '(2,)')).toBeLessThan(0); // strings, not numbers
  });
});

describe('kendallTauB', () => {
  it('is 1 for the same order, -1 for the reverse', () => {
    expect(kendallTauB(['a', 'b', 'c'], ['a', 'b', 'c'])).toBe(1);
    expect(kendallTauB(['a', 'b', 'c'], ['x', 'y', 'z'])).toBe(1);
    expect(kendallTauB(['a', 'b', 'c'], ['c', 'b', 'a'])).toBe(-1);
  });

  it('is NaN for fewer than two items or a constant side', () => {
    expect(kendallTauB([], [])).toBeNaN();
    expect(kendallTauB(['a'], ['a'])).toBeNaN();
    expect(kendallTauB(['a', 'a'], ['a', 'b'])).toBeNaN();
    expect(kendallTauB(['a', 'b', 'c'], ['z', 'z', 'z'])).toBeNaN();
  });

  it('handles ties as tau-b', () => {
    // x = a a b, y = a b b: tot 3, xtie 1, ytie 1, ntie 0, dis 0 → (3-1-1+0)/sqrt(2)/sqrt(2)
    expect(kendallTauCounts(['a', 'a', 'b'], ['a', 'b', 'b'])).toEqual({
      n: 3,
      tot: 3,
      xtie: 1,
      ytie: 1,
      ntie: 0,
      dis: 0,
    });
    expect(kendallTauB(['a', 'a', 'b'], ['a', 'b', 'b'])).toBe(1 / Math.sqrt(2) / Math.sqrt(2));
  });

  it('divides by the two square roots in turn, like scipy', () => {
    const counts = { n: 0, tot: 10, xtie: 3, ytie: 1, ntie: 0, dis: 2 };
    const cmd = 10 - 3 - 1 + 0 - 4;
    expect(kendallTauFromCounts(counts)).toBe(cmd / Math.sqrt(7) / Math.sqrt(9));
    expect(kendallTauFromCounts({ ...counts, xtie: 10 })).toBeNaN();
    expect(kendallTauFromCounts({ ...counts, ytie: 10 })).toBeNaN();
  });

  it('rejects sequences of different lengths', () => {
    expect(() => kendallTauB(['a'], ['a', 'b'])).toThrow(RangeError);
  });

  it('counts pairs like the O(n²) definition', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    const word = () => 'abc'.slice(0, 1 + Math.floor(random() * 3)) + 'xyz'[Math.floor(random() * 3)];
    for (let round = 0; round < 200; round += 1) {
      const n = Math.floor(random() * 40);
      const x = Array.from({ length: n }, word);
      const y = Array.from({ length: n }, word);
      const fast = kendallTauCounts(x, y);
      const slow = naiveCounts(x, y);
      expect(fast).toEqual({
        n,
        tot: (n * (n - 1)) / 2,
        xtie: slow.xtie,
        ytie: slow.ytie,
        ntie: slow.ntie,
        dis: slow.dis,
      });
      expect(fast.tot - fast.xtie - fast.ytie + fast.ntie - fast.dis).toBe(slow.con);
    }
  });

  it(`equals scipy ${fixture.meta.scipy} kendalltau bit for bit on ${fixture.kendall.length} cases`, () => {
    expect(fixture.kendall.length).toBeGreaterThan(600);
    expect(fixture.kendall.some(([x]) => x.length >= 3000)).toBe(true);
    const mismatches = fixture.kendall
      .map(([x, y, want], i) => ({ i, n: x.length, want: want ?? Number.NaN, got: kendallTauB(x, y) }))
      .filter(({ want, got }) => !Object.is(want, got));
    expect(mismatches).toEqual([]);
  });

  it('stays fast on large inputs', () => {
    const n = 20_000;
    const x = Array.from({ length: n }, (_, i) => `(${i % 997}, 'r${i}')`);
    const y = [...x].reverse();
    const start = performance.now();
    expect(kendallTauB(x, y)).toBeLessThan(0);
    expect(performance.now() - start).toBeLessThan(5000); // O(n²) would take far longer
  });
});

describe('kendallTauCountsOfSelf', () => {
  it('gives the counts kendallTauCounts finds for a sequence against itself', () => {
    let seed = 7;
    const random = () => {
      seed = (seed * 1103515245 + 12345) % 2 ** 31;
      return seed / 2 ** 31;
    };
    for (let round = 0; round < 300; round += 1) {
      const n = Math.floor(random() * 40);
      const alphabet = 1 + Math.floor(random() * 12);
      const x = Array.from({ length: n }, () => `(${Math.floor(random() * alphabet)},)`);
      const sizes = new Map<string, number>();
      for (const item of x) sizes.set(item, (sizes.get(item) ?? 0) + 1);
      const fast = kendallTauCountsOfSelf(n, sizes.values());
      expect(fast).toEqual(kendallTauCounts(x, x));
      expect(Object.is(kendallTauFromCounts(fast), kendallTauB(x, x))).toBe(true);
    }
  });
});
