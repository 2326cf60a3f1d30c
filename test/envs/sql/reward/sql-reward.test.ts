import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import type { Score } from '../../../../src/core/env.js';
import { PyDecimal } from '../../../../src/envs/python-compat/python-repr.js';
import { pythonRound } from '../../../../src/envs/python-compat/python-round.js';
import { kendallTauB } from '../../../../src/envs/sql/reward/kendall-tau.js';
import { sqlReward, sqlRewardOfRows } from '../../../../src/envs/sql/reward/sql-reward.js';

/** From a from-spec Python reference with scipy (test/fixtures/generate-sql-reward-fixtures.py). */
const fixture = JSON.parse(
  readFileSync(new URL('../../../fixtures/sql-reward-cases.json', import.meta.url), 'utf8'),
) as { meta: { scipy: string }; reward: [string[], string[], number, number, number | null][] };

const rows = (...values: number[]) => values.map((v) => `(${v},)`);

describe('sqlReward', () => {
  it('gives 1 for two empty results and 0 when exactly one is empty', () => {
    expect(sqlReward([], [])).toEqual({
      value: 1,
      parts: { iou: 1 },
      details: { rule: 'both-empty', agentRows: 0, goldRows: 0, intersection: 0, union: 0 },
    });
    expect(sqlReward([], rows(1)).value).toBe(0);
    expect(sqlReward(rows(1), []).value).toBe(0);
    expect(sqlReward(rows(1), []).details.rule).toBe('no-overlap');
  });

  it('gives 0 when a side is not a result set', () => {
    const r = sqlReward(null, rows(1));
    expect(r.value).toBe(0);
    expect(r.details).toEqual({
      rule: 'not-a-result-set',
      agentRows: null,
      goldRows: 1,
      intersection: 0,
      union: 0,
    });
    expect(sqlReward(rows(1), null).value).toBe(0);
    expect(sqlReward(null, null).value).toBe(0);
  });

  it('scores a result equal to the gold row for row as the general rule does (its shortcut)', () => {
    const cases = [
      ['(1,)', '(2,)', '(3,)'],
      ['(1,)', '(1,)', '(2,)', '(1,)'],
      ['(1,)', '(1,)'],
      ['(5,)'],
      ["('b',)", "('a',)", "('b',)", "('c',)", "('a',)"],
    ];
    for (const gold of cases) {
      const agent = [...gold];
      const tau = kendallTauB(agent, gold);
      const details = { agentRows: gold.length, goldRows: gold.length };
      const expected = Number.isNaN(tau)
        ? { value: 1, parts: { iou: 1 }, details: { rule: 'tau-undefined', ...details } }
        : { value: pythonRound(tau, 2), parts: { iou: 1, tau }, details: { rule: 'tau-scaled', ...details } };
      expect(sqlReward(agent, gold)).toMatchObject(expected);
      expect(Object.is(sqlReward(agent, gold).parts.tau, Number.isNaN(tau) ? undefined : tau)).toBe(true);
    }
  });

  it('gives 1 for the same rows in the same order', () => {
    const r = sqlReward(rows(1, 2, 3), rows(1, 2, 3));
    expect(r.value).toBe(1);
    expect(r.parts).toEqual({ iou: 1, tau: 1 });
    expect(r.details.rule).toBe('tau-scaled');
  });

  it('goes negative for the right rows in reverse order', () => {
    const r = sqlReward(rows(1, 2, 3), rows(3, 2, 1));
    expect(r.value).toBe(-1);
    expect(r.parts).toEqual({ iou: 1, tau: -1 });
    expect(sqlReward(rows(1, 2, 3, 9), rows(3, 2, 1)).value).toBe(-0.75);
  });

  it('rounds tau·iou half-even on the binary value (0.625 → 0.62)', () => {
    // 5 shared rows of 8: iou 0.625; with one tied pair tau is 9/√9/√9 = exactly 1.
    const r = sqlReward(rows(1, 1, 2, 3, 4, 6, 7, 8), rows(1, 1, 2, 3, 4));
    expect(r.parts).toEqual({ iou: 0.625, tau: 1 });
    expect(r.value).toBe(0.62);
    // 0.875 is a tie too, and goes to the even 0.88; 0.375 → 0.38.
    expect(sqlReward(rows(1, 1, 2, 3, 4, 5, 6, 7), rows(1, 1, 2, 3, 4, 5, 6)).value).toBe(0.88);
    // 6 shared rows of 16, four of them equal: tau (15 − 6) / √9 / √9 = 1, iou 0.375.
    const three = sqlReward(
      rows(1, 1, 1, 1, 2, 3, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19),
      rows(1, 1, 1, 1, 2, 3),
    );
    expect(three.parts).toEqual({ iou: 0.375, tau: 1 });
    expect(three.value).toBe(0.38);
    // iou 1/3 → 0.33
    expect(sqlReward(rows(1, 2, 3, 4, 5, 6), rows(1, 2)).value).toBe(0.33);
  });

  it("keeps scipy's last-bit artefacts: the same 5 rows in the same order give tau 0.9999999999999999", () => {
    // 10 / √10 / √10 is not exactly 1 in float64 (scipy gives the same).
    const r = sqlReward(rows(1, 2, 3, 4, 5, 6, 7, 8), rows(1, 2, 3, 4, 5));
    expect(r.parts).toEqual({ iou: 0.625, tau: 0.9999999999999999 });
    expect(r.value).toBe(0.62); // round(0.6249999999999999, 2)
    expect(sqlReward(rows(1, 2, 3, 4, 5), rows(1, 2, 3, 4, 5)).value).toBe(1); // round(0.9999999999999999, 2)
  });

  it('falls back to the unrounded iou when tau is undefined', () => {
    // One shared row: tau NaN.
    const one = sqlReward(rows(1, 2, 3), rows(1, 4, 5, 6, 7, 8, 9));
    expect(one.value).toBe(1 / 9);
    expect(one.parts).toEqual({ iou: 1 / 9 });
    expect(one.details.rule).toBe('tau-undefined');
    // All shared rows equal on both sides (all tied): tau NaN, iou kept with all its digits.
    const tied = sqlReward(rows(1, 1, 1, 2, 3, 4, 5), rows(1, 1, 1));
    expect(tied.value).toBe(3 / 7);
    expect(tied.value).not.toBe(0.43);
    expect(tied.parts.tau).toBeUndefined();
  });

  it('treats rows as a multiset', () => {
    // A = {1×2}, G = {1×1}: ∩ 1, ∪ 2 → iou 0.5, one shared row → tau NaN → 0.5
    expect(sqlReward(rows(1, 1), rows(1)).value).toBe(0.5);
    // A = 1 1 2, G = 1 2 2: ∩ {1, 2} = 2, ∪ {1×2, 2×2} = 4; a = [1, 2], g = [1, 2] → tau 1
    const r = sqlReward(rows(1, 1, 2), rows(1, 2, 2));
    expect(r.parts).toEqual({ iou: 0.5, tau: 1 });
    expect(r.value).toBe(0.5);
    // Shared rows are taken in each side's order, earliest occurrences first:
    // A = 2 1 1, G = 1 2 → a = [2, 1], g = [1, 2] → tau −1, iou 2/3 → −0.67
    expect(sqlReward(rows(2, 1, 1), rows(1, 2)).value).toBe(-0.67);
    expect(sqlReward(rows(1, 1), rows(1, 1)).value).toBe(1); // all tied, iou 1
  });

  it('compares rows by their text, ordering them as strings', () => {
    // '(10,)' < '(2,)' as strings: the "numeric" order 2, 10 is a reversal.
    expect(sqlReward(['(2,)', '(10,)'], ['(10,)', '(2,)']).value).toBe(-1);
    expect(sqlReward(['(1,)'], ['(1.0,)']).value).toBe(0);
  });

  it('fits the Env Score shape', () => {
    const score: Score = sqlReward(rows(1, 2), rows(2, 1));
    expect(score.value).toBe(-1);
    expect(Object.values(score.parts ?? {}).every((v) => Number.isFinite(v))).toBe(true);
  });

  it('renders Python rows first in sqlRewardOfRows', () => {
    expect(
      sqlRewardOfRows(
        [
          [1n, 'a'],
          [new PyDecimal('2.50'), null],
        ],
        [
          [1n, 'a'],
          [new PyDecimal('2.50'), null],
        ],
      ).value,
    ).toBe(1);
    expect(sqlRewardOfRows([[1n]], [[1]]).value).toBe(0); // int 1 vs float 1.0
    expect(sqlRewardOfRows(null, []).value).toBe(0);
  });

  it(`matches the scipy ${fixture.meta.scipy} reference on ${fixture.reward.length} random cases`, () => {
    expect(fixture.reward.length).toBeGreaterThan(1500);
    const mismatches = fixture.reward
      .map(([agent, gold, value, iou, tau], i) => ({
        i,
        want: { value, iou, tau },
        got: sqlReward(agent, gold),
      }))
      .filter(
        ({ want, got }) =>
          !Object.is(got.value, want.value) ||
          !Object.is(got.parts.iou, want.iou) ||
          !Object.is(got.parts.tau ?? null, want.tau),
      );
    expect(mismatches).toEqual([]);
    expect(fixture.reward.filter(([, , value]) => value < 0).length).toBeGreaterThan(100);
  });
});
