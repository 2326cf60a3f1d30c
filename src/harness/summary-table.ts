import type { TokenUsage } from '../agents/llm/model-client.js';
import { formatTable } from './format-table.js';
import type { Metrics } from './metrics.js';

/** The columns of the metrics table of `intercode run` and `intercode report`. */
export const SUMMARY_HEADER: readonly string[] = [
  'group',
  'n',
  'solved',
  'success',
  'first turn',
  'mean reward',
  'turns',
  'error',
  'failed',
];

/** A share as a percentage with one decimal (`66.7%`). */
export function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** One row of the metrics table (`failed`: episodes with an infrastructure error, not in `n`). */
export function metricsRow(name: string, metrics: Metrics): string[] {
  return [
    name,
    String(metrics.n),
    String(metrics.solved),
    percent(metrics.successRate),
    percent(metrics.firstTurnSuccessRate),
    metrics.meanReward.toFixed(3),
    metrics.meanTurns.toFixed(2),
    percent(metrics.errorRate),
    String(metrics.episodeErrors),
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

/** A cost in US dollars (`$0.0123`), `unknown` when a model had no price. */
export function formatCost(costUsd: number | null): string {
  return costUsd === null ? 'unknown' : `$${costUsd < 1 ? costUsd.toFixed(4) : costUsd.toFixed(2)}`;
}

/** True when the episodes made model calls (there are tokens to show). */
export function hasUsage(metrics: Metrics): boolean {
  const { input, output } = metrics.usage;
  return input + output > 0 || metrics.costUsd === null;
}

/** `tokens: 1200 in (300 cached), 80 out (20 reasoning); cost $0.0123`. */
export function usageLine(usage: TokenUsage, costUsd: number | null): string {
  return `tokens: ${usage.input} in (${usage.cachedInput} cached), ${usage.output} out (${usage.reasoning} reasoning); cost ${formatCost(costUsd)}`;
}

/**
 * The table printed at the end of a run: overall metrics, then each group when there are several,
 * then the tokens and cost when a model was called.
 */
export function summaryTable(overall: Metrics, byGroup: Readonly<Record<string, Metrics>>): string {
  const table = formatTable(SUMMARY_HEADER, summaryRows(overall, byGroup));
  return hasUsage(overall) ? `${table}\n${usageLine(overall.usage, overall.costUsd)}` : table;
}
