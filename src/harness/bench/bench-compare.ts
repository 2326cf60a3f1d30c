import { readFileSync } from 'node:fs';
import { z } from 'zod';
import { UsageError } from '../../core/errors.js';
import { formatTable } from '../format-table.js';
import type { BenchFigure } from './bench-figure.js';

/** How one figure moved against the saved run. */
export type BenchVerdict = 'better' | 'same' | 'worse within noise' | 'REGRESSED' | 'new' | 'not measured';

export interface BenchChange {
  readonly key: string;
  readonly unit: string;
  readonly saved?: BenchFigure;
  readonly current?: BenchFigure;
  /** Relative change of p50, signed so that positive is worse (slower, bigger, fewer per second). */
  readonly worse?: number;
  /** What the samples' spread alone could explain, as a fraction of the saved p50. */
  readonly noise?: number;
  readonly verdict: BenchVerdict;
}

const figureSchema = z.object({
  backend: z.string(),
  group: z.string(),
  name: z.string(),
  unit: z.string(),
  n: z.number(),
  p50: z.number().nullable(),
  p95: z.number().nullable(),
  target: z
    .object({ op: z.enum(['<=', '>=']) })
    .passthrough()
    .optional(),
});
const benchFileSchema = z.object({ figures: z.array(figureSchema) }).passthrough();

/** The figures of a saved `intercode bench --json` file; a file that is not one fails in one line. */
export function readBenchFile(path: string): BenchFigure[] {
  let text: string;
  try {
    text = readFileSync(path, 'utf8');
  } catch (error) {
    throw new UsageError(`--compare ${path}: cannot read it (${(error as NodeJS.ErrnoException).code})`);
  }
  let data: unknown;
  try {
    data = JSON.parse(text);
  } catch {
    throw new UsageError(`--compare ${path}: not JSON (expected a file of intercode bench --json)`);
  }
  const parsed = benchFileSchema.safeParse(data);
  if (!parsed.success)
    throw new UsageError(`--compare ${path}: not a file of intercode bench --json (no list of figures)`);
  // JSON writes a figure without samples (NaN) as null.
  return parsed.data.figures.map(
    (item) => ({ ...item, p50: item.p50 ?? Number.NaN, p95: item.p95 ?? Number.NaN }) as BenchFigure,
  );
}

/** +1 when a larger value is worse (times, memory), -1 when smaller is (rates), 0 when unknown. */
function direction(item: BenchFigure): number {
  if (item.target) return item.target.op === '<=' ? 1 : -1;
  if (item.unit === 'episodes/s' || item.unit === 'sessions/s') return -1;
  if (item.unit === 'ms' || item.unit === 's' || item.unit === 'MiB') return 1;
  return 0;
}

/**
 * The spread of a figure's samples relative to its p50, over the square root of their number: how far
 * its median could move by chance. One sample has no spread to tell (0).
 */
function spread(item: BenchFigure): number {
  if (item.n < 2 || !(item.p50 > 0) || !Number.isFinite(item.p95)) return 0;
  return Math.abs(item.p95 - item.p50) / item.p50 / Math.sqrt(item.n);
}

const keyOf = (item: BenchFigure) => `${item.backend} · ${item.group}: ${item.name}`;

/**
 * Each figure of `current` against the same figure (backend, group, name) of `saved`. A figure
 * regressed when its p50 is worse by more than `tolerance` (a fraction) and by more than its noise:
 * twice the larger relative spread of the two runs (see {@link spread}); worse by more than the
 * tolerance but not the noise is `worse within noise`, better by more than the tolerance `better`,
 * and a change within the tolerance (or of a figure whose better direction is unknown) `same`.
 */
export function compareBench(
  saved: readonly BenchFigure[],
  current: readonly BenchFigure[],
  tolerance: number,
): BenchChange[] {
  const before = new Map(saved.map((item) => [keyOf(item), item]));
  const changes: BenchChange[] = [];
  for (const item of current) {
    const key = keyOf(item);
    const old = before.get(key);
    before.delete(key);
    if (!old || !(old.p50 > 0) || !Number.isFinite(item.p50) || old.unit !== item.unit) {
      changes.push({ key, unit: item.unit, current: item, ...(old ? { saved: old } : {}), verdict: 'new' });
      continue;
    }
    const sign = direction(item);
    const worse = (sign === 0 ? 1 : sign) * ((item.p50 - old.p50) / old.p50);
    const noise = 2 * Math.max(spread(old), spread(item));
    let verdict: BenchVerdict = 'same';
    if (sign !== 0 && worse > tolerance) verdict = worse > noise ? 'REGRESSED' : 'worse within noise';
    else if (sign !== 0 && -worse > tolerance) verdict = 'better';
    changes.push({ key, unit: item.unit, saved: old, current: item, worse, noise, verdict });
  }
  for (const [key, old] of before) changes.push({ key, unit: old.unit, saved: old, verdict: 'not measured' });
  return changes;
}

function format(value: number | undefined): string {
  if (value === undefined || !Number.isFinite(value)) return '-';
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

const percent = (value: number | undefined) =>
  value === undefined || !Number.isFinite(value)
    ? ''
    : `${value > 0 ? '+' : ''}${(value * 100).toFixed(1)} %`;

/** The comparison as a table: saved and current p50, the change (positive: worse), noise and verdict. */
export function benchCompareTable(changes: readonly BenchChange[]): string {
  const header = ['figure', 'unit', 'saved p50', 'p50', 'worse by', 'noise', ''];
  const rows = changes.map((change) => [
    change.key,
    change.unit,
    format(change.saved?.p50),
    format(change.current?.p50),
    percent(change.worse),
    change.noise === undefined ? '' : `±${(change.noise * 100).toFixed(1)} %`,
    change.verdict,
  ]);
  return formatTable(header, rows);
}
