import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { pythonRound } from '../../../src/envs/python-compat/python-round.js';

/** [x, digits, round(x, digits)] from /usr/bin/python3 (test/fixtures/generate-python-reward-fixtures.py). */
const fixture = JSON.parse(
  readFileSync(new URL('../../fixtures/python-round-cases.json', import.meta.url), 'utf8'),
) as { meta: { python: string }; cases: [number, number, number][] };

describe('pythonRound', () => {
  it('rounds the exact binary value half to even, like Python', () => {
    expect(pythonRound(0.625, 2)).toBe(0.62); // exact tie → even
    expect(pythonRound(0.125, 2)).toBe(0.12);
    expect(pythonRound(0.375, 2)).toBe(0.38);
    expect(pythonRound(0.165, 2)).toBe(0.17); // the double is slightly above 0.165
    expect(pythonRound(2.675, 2)).toBe(2.67); // the double is slightly below 2.675
    expect(pythonRound(1.005, 2)).toBe(1); // slightly below 1.005
    expect(pythonRound(0.285, 2)).toBe(0.28);
  });

  it('sends ties at zero digits to the even integer', () => {
    expect(pythonRound(0.5, 0)).toBe(0);
    expect(pythonRound(1.5, 0)).toBe(2);
    expect(pythonRound(2.5, 0)).toBe(2);
    expect(pythonRound(3.5, 0)).toBe(4);
    expect(pythonRound(2.5)).toBe(2); // digits default to 0
    expect(Object.is(pythonRound(-0.5, 0), -0)).toBe(true);
    expect(pythonRound(-1.5, 0)).toBe(-2);
    expect(pythonRound(-2.5, 0)).toBe(-2);
  });

  it('handles negatives symmetrically and keeps the sign of a zero result', () => {
    expect(pythonRound(-0.625, 2)).toBe(-0.62);
    expect(pythonRound(-2.675, 2)).toBe(-2.67);
    expect(Object.is(pythonRound(-0.001, 2), -0)).toBe(true);
    expect(Object.is(pythonRound(0.001, 2), 0)).toBe(true);
    expect(Object.is(pythonRound(-0, 2), -0)).toBe(true);
  });

  it('rounds to tens and hundreds with negative digits', () => {
    expect(pythonRound(15, -1)).toBe(20);
    expect(pythonRound(25, -1)).toBe(20);
    expect(pythonRound(35, -1)).toBe(40);
    expect(pythonRound(-25, -1)).toBe(-20);
    expect(pythonRound(123456.789, -2)).toBe(123500);
    expect(pythonRound(1e22, -22)).toBe(1e22);
  });

  it('passes through values already exact, NaN and infinities', () => {
    expect(pythonRound(0.1, 20)).toBe(0.1);
    expect(pythonRound(5e-324, 400)).toBe(5e-324);
    expect(pythonRound(1e300, 2)).toBe(1e300);
    expect(pythonRound(Number.POSITIVE_INFINITY, 2)).toBe(Number.POSITIVE_INFINITY);
    expect(pythonRound(Number.NEGATIVE_INFINITY, -3)).toBe(Number.NEGATIVE_INFINITY);
    expect(pythonRound(Number.NaN, 2)).toBeNaN();
    expect(pythonRound(1.7976931348623157e308, -400)).toBe(0);
  });

  it('rounds the reward parts the way the logs show', () => {
    expect(pythonRound(0.33 * 0.10058285408404015, 2)).toBe(0.03);
    expect(pythonRound(0.33 * 0.8930827250129061, 2)).toBe(0.29);
    expect(pythonRound(0.33 * (1 / 2), 2)).toBe(0.17);
    expect(pythonRound(0.33 * (1 / 3), 2)).toBe(0.11);
    expect(pythonRound(0.33 * (2 / 3), 2)).toBe(0.22);
  });

  it('raises where Python raises', () => {
    expect(() => pythonRound(1.7976931348623157e308, -308)).toThrow(RangeError); // OverflowError in Python
    expect(() => pythonRound(1.5, 0.5)).toThrow(TypeError);
  });

  it(`matches Python ${fixture.meta.python} on all ${fixture.cases.length} fixture cases bit for bit`, () => {
    expect(fixture.cases.length).toBeGreaterThan(4000);
    const mismatches = fixture.cases
      .map(([x, digits, want]) => ({ x, digits, want, got: pythonRound(x, digits) }))
      .filter(({ want, got }) => !Object.is(want, got));
    expect(mismatches).toEqual([]);
  });

  it('differs from Math.round(x * 100) / 100 where Python does', () => {
    // The naive formula gets these wrong; kept here as a reminder of why this module exists.
    expect(Math.round(0.625 * 100) / 100).toBe(0.63);
    expect(Math.round(2.675 * 100) / 100).toBe(2.68);
    expect(pythonRound(0.625, 2)).toBe(0.62);
    expect(pythonRound(2.675, 2)).toBe(2.67);
  });
});
