import { formatTable } from '../format-table.js';
import type { BenchFigure } from './bench-figure.js';

function format(value: number): string {
  if (!Number.isFinite(value)) return '-';
  if (Math.abs(value) >= 100) return value.toFixed(0);
  if (Math.abs(value) >= 10) return value.toFixed(1);
  return value.toFixed(2);
}

/** A plain-text table of figures, one row each, with the target and whether it was met. */
export function benchTable(figures: readonly BenchFigure[]): string {
  const header = ['figure', 'backend', 'n', 'p50', 'p95', 'unit', 'target', ''];
  const rows = figures.map((item) => [
    `${item.group}: ${item.name}`,
    item.backend,
    String(item.n),
    format(item.p50),
    format(item.p95),
    item.unit,
    item.target ? `${item.target.stat} ${item.target.op} ${item.target.value}` : '',
    item.pass === undefined ? '' : item.pass ? 'ok' : 'MISSED',
  ]);
  return formatTable(header, rows);
}

/**
 * The figures measured on several backends side by side: the p50 of each backend and its ratio to
 * the first one (how many times slower or bigger), for every figure that all of them have.
 */
export function benchComparison(figures: readonly BenchFigure[], backends: readonly string[]): string {
  const [first, ...others] = backends;
  if (first === undefined || others.length === 0) return '';
  const key = (item: BenchFigure) => `${item.group}: ${item.name}`;
  // Sandbox figures name their image after the backend (`docker (debian)`): compare by backend.
  const backendOf = (item: BenchFigure) => item.backend.replace(/ \(.*\)$/, '');
  const byBackend = new Map<string, Map<string, BenchFigure>>();
  for (const item of figures) {
    const map = byBackend.get(backendOf(item)) ?? new Map<string, BenchFigure>();
    map.set(key(item), item);
    byBackend.set(backendOf(item), map);
  }
  const header = [
    'figure',
    'unit',
    ...backends.map((backend) => `${backend} p50`),
    ...others.map((o) => `${o}/${first}`),
  ];
  const rows: string[][] = [];
  for (const [name, base] of byBackend.get(first) ?? []) {
    const row = others.map((backend) => byBackend.get(backend)?.get(name));
    if (row.some((item) => item === undefined)) continue;
    rows.push([
      name,
      base.unit,
      format(base.p50),
      ...row.map((item) => format(item!.p50)),
      ...row.map((item) => (base.p50 === 0 ? '-' : `${format(item!.p50 / base.p50)}x`)),
    ]);
  }
  return formatTable(header, rows);
}
