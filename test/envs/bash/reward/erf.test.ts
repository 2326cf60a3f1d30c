import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { erf } from '../../../../src/envs/bash/reward/erf.js';

/**
 * [x, math.erf(x) from /usr/bin/python3, the double nearest the true erf(x) (120-digit Decimal)],
 * from test/fixtures/generate-python-reward-fixtures.py.
 */
const fixture = JSON.parse(
  readFileSync(new URL('../../../fixtures/python-erf-cases.json', import.meta.url), 'utf8'),
) as { meta: { python: string }; cases: [number, number, number][] };

/** Distance in units in the last place between two doubles of the same sign. */
function ulpDistance(a: number, b: number): number {
  const view = new DataView(new ArrayBuffer(16));
  view.setFloat64(0, a);
  view.setFloat64(8, b);
  const ia = view.getBigInt64(0);
  const ib = view.getBigInt64(8);
  return Number(ia > ib ? ia - ib : ib - ia);
}

describe('erf', () => {
  it('has the special values and symmetry', () => {
    expect(Object.is(erf(0), 0)).toBe(true);
    expect(Object.is(erf(-0), -0)).toBe(true);
    expect(erf(Number.POSITIVE_INFINITY)).toBe(1);
    expect(erf(Number.NEGATIVE_INFINITY)).toBe(-1);
    expect(erf(Number.NaN)).toBeNaN();
    for (const x of [1e-300, 0.1, 0.7, 1.3, 2.9, 3.1, 5.5, 7]) expect(erf(-x)).toBe(-erf(x));
  });

  it('is exact at the integers the reward feeds it', () => {
    // Python: math.erf(1) == 0.8427007929497149, math.erf(2) == 0.9953222650189527, ...
    expect(erf(1)).toBe(0.8427007929497149);
    expect(erf(2)).toBe(0.9953222650189527);
    expect(erf(3)).toBe(0.9999779095030014);
    expect(erf(4)).toBe(0.9999999845827421);
    expect(erf(5)).toBe(0.9999999999984626);
    for (let k = 6; k <= 50; k++) expect(erf(k)).toBe(1);
    for (let k = 0; k <= 12; k++) {
      const row = fixture.cases.find(([x]) => x === k);
      expect(row, `fixture has erf(${k})`).toBeDefined();
      expect(erf(k)).toBe(row![1]);
    }
  });

  it(`is correctly rounded on all ${fixture.cases.length} fixture points`, () => {
    const wrong = fixture.cases.filter(([x, , nearest]) => !Object.is(erf(x), nearest));
    expect(wrong).toEqual([]);
  });

  it(`agrees with Python ${fixture.meta.python} math.erf within one ulp, bit for bit on most points`, () => {
    let exact = 0;
    for (const [x, python, nearest] of fixture.cases) {
      const got = erf(x);
      expect(ulpDistance(got, python), `erf(${x})`).toBeLessThanOrEqual(1);
      if (Object.is(got, python)) exact += 1;
      // Where they differ it is the platform libm that is off by one ulp, not us.
      else expect(got).toBe(nearest);
    }
    expect(exact / fixture.cases.length).toBeGreaterThan(0.97);
  });
});
