import { formatTable } from './format-table.js';
import type { metricsByGroup } from './metrics.js';
import type { RunSummary } from './run-summary.js';

function percent(value: number): string {
  return `${(value * 100).toFixed(1)}%`;
}

/** The table of a run's metrics, overall and per group (printed at the end of a run and by report). */
export function summaryTable(summary: RunSummary, byGroup: ReturnType<typeof metricsByGroup>): string {
  const header = ['group', 'n', 'solved', 'success', 'mean reward', 'turns', 'error'];
  const row = (name: string, m: Omit<RunSummary, 'byGroup'> | (typeof byGroup)[string]) => [
    name,
    String(m.n),
    String(m.solved),
    percent(m.successRate),
    m.meanReward.toFixed(3),
    m.meanTurns.toFixed(2),
    percent(m.errorRate),
  ];
  const rows = [row('all', summary)];
  const groups = Object.entries(byGroup);
  if (groups.length > 1) for (const [group, m] of groups) rows.push(row(group, m));
  return formatTable(header, rows);
}
