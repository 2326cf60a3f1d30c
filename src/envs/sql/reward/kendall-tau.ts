/**
 * Kendall's tau-b of two equally long sequences of strings, bit for bit as InterCode's SQL reward
 * gets it from `scipy.stats.kendalltau(x, y, nan_policy='omit')` (default `variant='b'`).
 *
 * Strings are ordered by Unicode code point, as numpy orders its `<U` string arrays (JavaScript's
 * own `<` orders UTF-16 code units, which differs for characters above U+FFFF). For strings there
 * is nothing for `nan_policy='omit'` to omit, so it changes nothing.
 *
 * With n items, over all n(n−1)/2 = `tot` pairs of positions i < j:
 * - `xtie`: pairs tied in x, `ytie`: pairs tied in y, `ntie`: pairs tied in both;
 * - `dis`: discordant pairs (x and y strictly ordered in opposite directions);
 * - concordant − discordant = `tot − xtie − ytie + ntie − 2·dis` (all exact integers).
 *
 * The statistic is computed in float64 in exactly scipy's order of operations:
 *
 *     tau = (tot − xtie − ytie + ntie − 2·dis) / sqrt(tot − xtie) / sqrt(tot − ytie)
 *
 * (two correctly rounded square roots and two divisions, left to right; *not* one division by the
 * square root of the product, which can differ in the last bit), then clipped to [−1, 1]. It is NaN
 * when there are no items, one item (tot = 0), or when every pair is tied on one side
 * (`xtie == tot` or `ytie == tot`, i.e. one sequence is constant).
 *
 * Counting is O(n log n): both sequences are turned into dense integer ranks, the positions are
 * sorted by (x rank, y rank), and discordant pairs are the strict inversions of the y ranks in that
 * order, counted by a merge sort.
 */

/** Compares two strings by Unicode code point (numpy's order for `<U` arrays): <0, 0 or >0. */
export function compareCodePoints(a: string, b: string): number {
  const n = Math.min(a.length, b.length);
  for (let i = 0; i < n; i += 1) {
    const ca = a.charCodeAt(i);
    const cb = b.charCodeAt(i);
    if (ca !== cb) {
      // UTF-16 units order like code points except that surrogates (0xD800–0xDFFF, which encode
      // code points above 0xFFFF) must sort after the units 0xE000–0xFFFF.
      return codePointOrderKey(ca) - codePointOrderKey(cb);
    }
  }
  return a.length - b.length;
}

function codePointOrderKey(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/** The pair counts behind tau-b; see the module comment. */
export interface KendallTauCounts {
  /** Number of items. */
  readonly n: number;
  /** All pairs, n(n−1)/2. */
  readonly tot: number;
  /** Pairs tied in x. */
  readonly xtie: number;
  /** Pairs tied in y. */
  readonly ytie: number;
  /** Pairs tied in both x and y. */
  readonly ntie: number;
  /** Discordant pairs. */
  readonly dis: number;
}

/** Dense ranks (0, 1, 2, …) of the values in code-point order; equal values share a rank. */
function denseRanks(values: readonly string[]): Int32Array {
  const order = values.map((_, i) => i).sort((i, j) => compareCodePoints(values[i] ?? '', values[j] ?? ''));
  const ranks = new Int32Array(values.length);
  let rank = -1;
  let previous: string | undefined;
  for (const [k, i] of order.entries()) {
    const value = values[i] ?? '';
    if (k === 0 || value !== previous) rank += 1;
    ranks[i] = rank;
    previous = value;
  }
  return ranks;
}

/** Σ c(c−1)/2 over the sizes c of the groups of equal ranks. */
function tiedPairs(ranks: Int32Array): number {
  const counts = new Map<number, number>();
  for (const r of ranks) counts.set(r, (counts.get(r) ?? 0) + 1);
  let pairs = 0;
  for (const c of counts.values()) pairs += (c * (c - 1)) / 2;
  return pairs;
}

/** Number of pairs i < j with values[i] > values[j]; sorts `values` in place. */
function countInversions(values: Int32Array): number {
  const buffer = new Int32Array(values.length);
  let inversions = 0;
  for (let width = 1; width < values.length; width *= 2) {
    for (let lo = 0; lo < values.length - width; lo += 2 * width) {
      const mid = lo + width;
      const hi = Math.min(lo + 2 * width, values.length);
      let i = lo;
      let j = mid;
      let k = lo;
      while (i < mid && j < hi) {
        const left = values[i] as number;
        const right = values[j] as number;
        if (right < left) {
          inversions += mid - i; // every remaining left item is greater than `right`
          buffer[k++] = right;
          j += 1;
        } else {
          buffer[k++] = left;
          i += 1;
        }
      }
      while (i < mid) buffer[k++] = values[i++] as number;
      while (j < hi) buffer[k++] = values[j++] as number;
      values.set(buffer.subarray(lo, hi), lo);
    }
  }
  return inversions;
}

/** The exact pair counts of tau-b for two equally long string sequences. */
export function kendallTauCounts(x: readonly string[], y: readonly string[]): KendallTauCounts {
  if (x.length !== y.length) {
    throw new RangeError(`sequences differ in length: ${x.length} and ${y.length}`);
  }
  const n = x.length;
  const rx = denseRanks(x);
  const ry = denseRanks(y);
  const order = Array.from({ length: n }, (_, i) => i).sort(
    (i, j) => (rx[i] as number) - (rx[j] as number) || (ry[i] as number) - (ry[j] as number),
  );
  let ntie = 0;
  let run = 0;
  for (let k = 0; k < n; k += 1) {
    const i = order[k] as number;
    const p = order[k - 1];
    run = p !== undefined && rx[p] === rx[i] && ry[p] === ry[i] ? run + 1 : 1;
    ntie += run - 1; // the new item ties with each earlier one of its run
  }
  const ySorted = Int32Array.from(order, (i) => ry[i] as number);
  return {
    n,
    tot: (n * (n - 1)) / 2,
    xtie: tiedPairs(rx),
    ytie: tiedPairs(ry),
    ntie,
    dis: countInversions(ySorted),
  };
}

/**
 * {@link kendallTauCounts} of a sequence against itself, from the sizes of its groups of equal
 * items (any order): every pair tied in x is tied in y and the other pairs are concordant, so
 * `xtie = ytie = ntie` and `dis = 0`, the very integers the general count finds, without its sorts.
 */
export function kendallTauCountsOfSelf(n: number, groupSizes: Iterable<number>): KendallTauCounts {
  let ties = 0;
  for (const c of groupSizes) ties += (c * (c - 1)) / 2;
  return { n, tot: (n * (n - 1)) / 2, xtie: ties, ytie: ties, ntie: ties, dis: 0 };
}

/** tau-b from its pair counts, in scipy's floating-point order; NaN when undefined. */
export function kendallTauFromCounts({ tot, xtie, ytie, ntie, dis }: KendallTauCounts): number {
  if (xtie === tot || ytie === tot) return Number.NaN;
  const conMinusDis = tot - xtie - ytie + ntie - 2 * dis;
  const tau = conMinusDis / Math.sqrt(tot - xtie) / Math.sqrt(tot - ytie);
  return Math.min(1, Math.max(-1, tau));
}

/**
 * Kendall's tau-b of `x` and `y` (equally long; throws a `RangeError` otherwise), exactly as
 * `scipy.stats.kendalltau(x, y, nan_policy='omit').statistic`; NaN for fewer than two items or a
 * constant sequence.
 */
export function kendallTauB(x: readonly string[], y: readonly string[]): number {
  return kendallTauFromCounts(kendallTauCounts(x, y));
}
