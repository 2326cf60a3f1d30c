import { formatTable } from './format-table.js';
import type { Metrics } from './metrics.js';

/** The columns of the metrics table of `intercode run` and `intercode report`. */
export const SUMMARY_HEADER: readonly string[] = [
  'group',
  'n',
  'solved',
  'success',
  'mean reward',
  'turns',
  'error',
];

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** One row of the metrics table. */
export function metricsRow(name: string, metrics: Metrics): string[] {
  return [
    name,
    String(metrics.n),
    String(metrics.solved),
    percent(metrics.successRate),
    metrics.meanReward.toFixed(3),
    metrics.meanTurns.toFixed(2),
    percent(metrics.errorRate),
  ];
}

/**
 * The rows of the metrics table: `all`, then one per group when there are several (with
 * `everyGroup`, also a single one).
 */
export function summaryRows(
  overall: Metrics,
  byGroup: Readonly<Record<string, Metrics>>,
  options: { readonly everyGroup?: boolean } = {},
): string[][] {
  const groups = Object.entries(byGroup);
  const listed = groups.length > 1 || options.everyGroup ? groups : [];
  return [metricsRow('all', overall), ...listed.map(([group, metrics]) => metricsRow(group, metrics))];
}

/** The table printed at the end of a run: overall metrics, then each group when there are several. */
export function summaryTable(overall: Metrics, byGroup: Readonly<Record<string, Metrics>>): string {
  return formatTable(SUMMARY_HEADER, summaryRows(overall, byGroup));
}
