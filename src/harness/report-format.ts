import { formatTable } from './format-table.js';
import { formatMarkdownTable } from './markdown-table.js';
import type { Metrics } from './metrics.js';
import { PAPER, type PaperMetric } from './paper/paper-figure.js';
import type { PaperComparison, ReportSetting, RunReport } from './run-report.js';
import { formatCost, hasUsage, metricsRow, percent, SUMMARY_HEADER } from './summary-table.js';

/** `table` (plain text, the default on a terminal) or `md` (Markdown). */
export type ReportTextFormat = 'table' | 'md';

/** The metrics a paper column can follow, and the column each follows in the metrics row. */
const PAPER_COLUMNS: readonly [PaperMetric, string][] = [
  ['successRate', 'success'],
  ['firstTurnSuccessRate', 'first turn'],
  ['meanTurns', 'turns'],
  ['errorRate', 'error'],
];
/** The metrics columns, as `intercode run` shows them. */
const METRIC_HEADER = SUMMARY_HEADER;

function paperValue(comparison: PaperComparison): string {
  const { paper, metric, source } = comparison;
  const digits = metric === 'meanTurns' || !Number.isInteger(Math.round(paper * 100) / 10) ? 2 : 1;
  return `${paper.toFixed(digits)}${source.recomputed ? '*' : ''}`;
}

function difference(comparison: PaperComparison): string {
  const digits = comparison.metric === 'meanTurns' ? 2 : 1;
  const text = comparison.difference.toFixed(digits);
  // A difference that rounds to nothing reads +0.0, never -0.0.
  if (Number(text) === 0) return `+${(0).toFixed(digits)}`;
  return comparison.difference > 0 ? `+${text}` : text;
}

/** One line naming the setting: dataset, agent, model (and the paper's name of it), strategy, … */
export function settingLine(setting: ReportSetting): string {
  const model =
    setting.model === undefined
      ? setting.paperModel && `paper model ${setting.paperModel}`
      : `model ${setting.model}${setting.paperModel ? ` (paper: ${setting.paperModel})` : ''}`;
  const parts = [
    setting.dataset,
    setting.agent !== undefined ? `agent ${setting.agent}` : undefined,
    model,
    setting.strategy !== undefined ? `strategy ${setting.strategy}` : undefined,
    setting.maxTurns !== undefined ? `${setting.maxTurns} turns` : undefined,
    setting.engine !== undefined ? `engine ${setting.engine}` : undefined,
    setting.handicap ? 'schema hint' : undefined,
    setting.compat !== undefined ? `compat ${setting.compat}` : undefined,
  ];
  return parts.filter((part) => part !== undefined).join(' · ');
}

/** The metrics rows of a report, each figure followed by the paper's and the difference where there is one. */
function metricsTable(report: RunReport): { header: string[]; rows: string[][] } {
  const shown = PAPER_COLUMNS.filter(([metric]) => report.paper.some((c) => c.metric === metric));
  const header = METRIC_HEADER.flatMap((column) => {
    const paired = shown.some(([, after]) => after === column);
    return paired ? [column, 'paper', 'diff'] : [column];
  });
  const groups = Object.entries(report.byGroup);
  const listed: [string, Metrics][] = [['all', report.overall], ...(groups.length > 1 ? groups : [])];
  const rows = listed.map(([group, metrics]) =>
    metricsRow(group, metrics).flatMap((cell, column) => {
      const pair = shown.find(([, after]) => after === METRIC_HEADER[column]);
      if (pair === undefined) return [cell];
      const comparison = report.paper.find((c) => c.group === group && c.metric === pair[0]);
      return comparison === undefined
        ? [cell, '-', '-']
        : [cell, paperValue(comparison), difference(comparison)];
    }),
  );
  return { header, rows };
}

/** Tokens and cost by group, for runs that called a model. */
function usageTable(report: RunReport): { header: string[]; rows: string[][] } | undefined {
  if (!hasUsage(report.overall)) return undefined;
  const groups = Object.entries(report.byGroup);
  const listed: [string, Metrics][] = [['all', report.overall], ...(groups.length > 1 ? groups : [])];
  return {
    header: ['group', 'input tokens', 'cached', 'output tokens', 'reasoning', 'cost'],
    rows: listed.map(([group, m]) => [
      group,
      String(m.usage.input),
      String(m.usage.cachedInput),
      String(m.usage.output),
      String(m.usage.reasoning),
      formatCost(m.costUsd),
    ]),
  };
}

/** Where the paper's figures of a report are printed. */
function sourcesLine(report: RunReport): string | undefined {
  if (report.paper.length === 0) return undefined;
  const tables = [
    ...new Set(report.paper.map((c) => (c.source.table === 'text' ? 'the text' : c.source.table))),
  ];
  const recomputed = report.paper.some((c) => c.source.recomputed)
    ? '; * not in the paper text we hold, recomputed from the upstream result file'
    : '';
  return `paper: arXiv ${PAPER.arxiv} ${PAPER.version}, ${tables.join(', ')}; diff = run − paper${recomputed}`;
}

function block(report: RunReport, format: ReportTextFormat): string {
  const table = (t: { header: string[]; rows: string[][] }) =>
    format === 'md' ? formatMarkdownTable(t.header, t.rows) : formatTable(t.header, t.rows);
  const usage = usageTable(report);
  const sources = sourcesLine(report);
  const parts = [
    format === 'md' ? `## ${report.title}` : report.title,
    ...(format === 'md' ? [''] : []),
    settingLine(report.setting),
    ...(format === 'md' ? [''] : []),
    table(metricsTable(report)),
    ...(usage ? [format === 'md' ? `\n${table(usage)}` : table(usage)] : []),
    ...(sources ? [format === 'md' ? `\n${sources}` : sources] : []),
  ];
  return parts.join('\n');
}

/** Several runs side by side: one row each with the overall figures and the paper's success rate. */
function overview(reports: readonly RunReport[], format: ReportTextFormat): string {
  const header = [
    'run',
    'model',
    'strategy',
    'n',
    'success',
    'paper',
    'diff',
    'turns',
    'error',
    'failed',
    'cost',
  ];
  const rows = reports.map((r) => {
    const paper = r.paper.find((c) => c.group === 'all' && c.metric === 'successRate');
    return [
      r.title,
      r.setting.paperModel ?? r.setting.model ?? r.setting.agent ?? '-',
      r.setting.strategy ?? '-',
      String(r.overall.n),
      percent(r.overall.successRate),
      paper ? paperValue(paper) : '-',
      paper ? difference(paper) : '-',
      r.overall.meanTurns.toFixed(2),
      percent(r.overall.errorRate),
      String(r.overall.episodeErrors),
      hasUsage(r.overall) ? formatCost(r.overall.costUsd) : '-',
    ];
  });
  return format === 'md'
    ? `## runs\n\n${formatMarkdownTable(header, rows)}`
    : `runs\n${formatTable(header, rows)}`;
}

/**
 * The text of `intercode report`: with several runs an overview first (one row per run), then a
 * block per run (setting, metrics by group beside the paper's, tokens and cost), then the runs
 * together.
 */
export function formatReport(
  runs: readonly RunReport[],
  combined: RunReport | undefined,
  format: ReportTextFormat,
): string {
  const blocks = [
    ...(runs.length > 1 ? [overview(runs, format)] : []),
    ...runs.map((run) => block(run, format)),
    ...(combined ? [block(combined, format)] : []),
  ];
  return `${blocks.join('\n\n')}\n`;
}

/** The JSON of `intercode report`: every figure, the paper's beside it, and its source. */
export function reportJson(runs: readonly RunReport[], combined: RunReport | undefined): string {
  const run = ({ title: _title, directories, ...rest }: RunReport) => ({
    directory: directories[0],
    ...rest,
  });
  const together = combined ? { combined: (({ title: _title, ...rest }) => rest)(combined) } : {};
  return `${JSON.stringify({ paper: PAPER, runs: runs.map(run), ...together }, null, 2)}\n`;
}
