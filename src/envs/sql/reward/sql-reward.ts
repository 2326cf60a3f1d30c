/**
 * The SQL reward of InterCode, as a pure function of the two result sets, exactly as upstream
 * computes it (`ic_sql` `get_reward`, unchanged since 2023-06-27):
 *
 * 1. The agent's last observation and the gold query's result are compared only when both are
 *    result sets (lists of rows); otherwise (an error message, a statement without a result set)
 *    the reward is 0. Upstream turns a failing gold query into an empty result set, not into "no
 *    result set", so callers should pass `[]` for the gold in that case.
 * 2. Each row is identified by its Python text `str(row)` (see `pyRowStr`); A and G are the
 *    multisets of those strings.
 * 3. Both empty → 1.
 * 4. Otherwise iou = |A ∩ G| / |A ∪ G| with multiset sizes (∩ takes the smaller count of each
 *    string, ∪ the larger).
 * 5. If A ∩ G is not empty: a = the rows of A, in A's order, that are in A ∩ G (each string taken
 *    at most as often as it is in A ∩ G, earliest first), g = the same for G; tau = Kendall's tau-b
 *    of a and g with rows ordered as strings (`kendallTauB`). When tau is defined the reward is
 *    Python's `round(tau · iou, 2)`, otherwise (fewer than two shared rows, or all of one side's
 *    shared rows equal) it is iou itself, unrounded.
 * 6. If A ∩ G is empty the reward is iou, i.e. 0.
 *
 * Unlike the paper (which maps tau to [0, 1]), the raw tau in [−1, 1] is used, so a result with
 * the right rows in reverse order scores negative. Python's `round` is half-even on the exact
 * binary value: `round(0.625, 2)` is 0.62.
 */

import { type PyTuple, type PyValue, pyRowStr } from '../../python-compat/python-repr.js';
import { pythonRound } from '../../python-compat/python-round.js';
import { kendallTauB, kendallTauCountsOfSelf, kendallTauFromCounts } from './kendall-tau.js';

/** Which rule of the module comment produced the value. */
export type SqlRewardRule =
  /** One side is not a result set: 0. */
  | 'not-a-result-set'
  /** Both result sets are empty: 1. */
  | 'both-empty'
  /** No row in common: iou = 0. */
  | 'no-overlap'
  /** round(tau · iou, 2). */
  | 'tau-scaled'
  /** Shared rows, but tau is undefined (one shared row, or one side constant): iou. */
  | 'tau-undefined';

export type SqlRewardParts = {
  /**
   * |A ∩ G| / |A ∪ G|; 1 when both result sets are empty and 0 when one side is not a result set
   * (cases where upstream computes no IoU).
   */
  readonly iou: number;
  /** Kendall's tau-b of the shared rows; present only where it was computed and is not NaN. */
  readonly tau?: number;
};

export type SqlRewardDetails = {
  readonly rule: SqlRewardRule;
  /** Rows in the agent's result set (null: not a result set). */
  readonly agentRows: number | null;
  /** Rows in the gold result set (null: not a result set). */
  readonly goldRows: number | null;
  /** |A ∩ G| with multiplicity. */
  readonly intersection: number;
  /** |A ∪ G| with multiplicity. */
  readonly union: number;
};

export type SqlReward = {
  readonly value: number;
  readonly parts: SqlRewardParts;
  readonly details: SqlRewardDetails;
};

function countStrings(rows: readonly string[]): Map<string, number> {
  const counts = new Map<string, number>();
  for (const row of rows) counts.set(row, (counts.get(row) ?? 0) + 1);
  return counts;
}

/** The rows of `rows`, in order, that are in the multiset `shared`, each taken at most its count. */
function sharedInOrder(rows: readonly string[], shared: ReadonlyMap<string, number>): string[] {
  const left = new Map(shared);
  const out: string[] = [];
  for (const row of rows) {
    const count = left.get(row) ?? 0;
    if (count > 0) {
      out.push(row);
      left.set(row, count - 1);
    }
  }
  return out;
}

function sameSequence(a: readonly string[], b: readonly string[]): boolean {
  if (a.length !== b.length) return false;
  for (let i = 0; i < a.length; i++) if (a[i] !== b[i]) return false;
  return true;
}

/**
 * The reward for the agent's result rows against the gold's, both given as `str(row)` strings (see
 * `pyRowStr`); `null` for an observation that is not a result set. See the module comment.
 */
export function sqlReward(agent: readonly string[] | null, gold: readonly string[] | null): SqlReward {
  if (agent === null || gold === null) {
    return {
      value: 0,
      parts: { iou: 0 },
      details: {
        rule: 'not-a-result-set',
        agentRows: agent?.length ?? null,
        goldRows: gold?.length ?? null,
        intersection: 0,
        union: 0,
      },
    };
  }
  const agentCounts = countStrings(agent);
  const goldCounts = countStrings(gold);
  const shared = new Map<string, number>();
  let intersection = 0;
  let union = 0;
  for (const [row, a] of agentCounts) {
    const g = goldCounts.get(row) ?? 0;
    union += Math.max(a, g);
    if (g > 0) {
      const both = Math.min(a, g);
      shared.set(row, both);
      intersection += both;
    }
  }
  for (const [row, g] of goldCounts) if (!agentCounts.has(row)) union += g;

  const details = { agentRows: agent.length, goldRows: gold.length, intersection, union };
  if (union === 0) return { value: 1, parts: { iou: 1 }, details: { rule: 'both-empty', ...details } };
  const iou = intersection / union;
  if (intersection === 0) return { value: iou, parts: { iou }, details: { rule: 'no-overlap', ...details } };

  // The common case (the agent's result is the gold's, row for row): every row is shared, and tau's
  // counts follow from the rows' multiplicities alone.
  const tau = sameSequence(agent, gold)
    ? kendallTauFromCounts(kendallTauCountsOfSelf(agent.length, agentCounts.values()))
    : kendallTauB(sharedInOrder(agent, shared), sharedInOrder(gold, shared));
  if (Number.isNaN(tau))
    return { value: iou, parts: { iou }, details: { rule: 'tau-undefined', ...details } };
  return {
    value: pythonRound(tau * iou, 2),
    parts: { iou, tau },
    details: { rule: 'tau-scaled', ...details },
  };
}

/**
 * {@link sqlReward} for rows of Python values (as an engine maps its driver's results): each row
 * is rendered with `pyRowStr` first.
 */
export function sqlRewardOfRows(
  agent: readonly (readonly PyValue[] | PyTuple)[] | null,
  gold: readonly (readonly PyValue[] | PyTuple)[] | null,
): SqlReward {
  return sqlReward(agent === null ? null : agent.map(pyRowStr), gold === null ? null : gold.map(pyRowStr));
}
