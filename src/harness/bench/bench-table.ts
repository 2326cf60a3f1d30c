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
