/** A performance target: the figure's p50 (or value) must stay on the right side of it. */
export interface BenchTarget {
  readonly op: '<=' | '>=';
  readonly value: number;
  /** Which statistic the target is about. */
  readonly stat: 'p50' | 'max';
}

/** One measured figure of `intercode bench`. */
export interface BenchFigure {
  readonly backend: string;
  readonly group: string;
  readonly name: string;
  readonly unit: 'ms' | 'MiB' | 'count' | 'episodes/s' | 'sessions/s' | 's';
  readonly n: number;
  readonly p50: number;
  readonly p95: number;
  readonly mean: number;
  readonly max: number;
  readonly target?: BenchTarget;
  /** Whether the target was met; absent without a target. */
  readonly pass?: boolean;
}

/** Nearest-rank percentile of unsorted samples. */
export function percentile(samples: readonly number[], p: number): number {
  if (samples.length === 0) return Number.NaN;
  const sorted = [...samples].sort((a, b) => a - b);
  const rank = Math.min(sorted.length - 1, Math.max(0, Math.ceil((p / 100) * sorted.length) - 1));
  return sorted[rank]!;
}

/** Summarises samples into a figure and checks its target. */
export function figure(
  base: { backend: string; group: string; name: string; unit: BenchFigure['unit']; target?: BenchTarget },
  samples: readonly number[],
): BenchFigure {
  const p50 = percentile(samples, 50);
  const max = samples.length ? Math.max(...samples) : Number.NaN;
  const result = {
    ...base,
    n: samples.length,
    p50,
    p95: percentile(samples, 95),
    mean: samples.reduce((sum, value) => sum + value, 0) / (samples.length || 1),
    max,
  };
  if (!base.target) return result;
  const value = base.target.stat === 'p50' ? p50 : max;
  const pass = base.target.op === '<=' ? value <= base.target.value : value >= base.target.value;
  return { ...result, pass };
}
