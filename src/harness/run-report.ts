import type { EpisodeRecord } from './episode-record.js';
import { computeMetrics, type Metrics, metricsByGroup } from './metrics.js';
import type { PaperMetric, PaperModel, PaperSource } from './paper/paper-figure.js';
import { paperFiguresFor } from './paper/paper-lookup.js';
import { paperModelName } from './paper/paper-model-name.js';
import type { RunDirectory } from './run-files/read-run-directory.js';

/** What a run was played in, as far as its files tell. */
export interface ReportSetting {
  readonly dataset: string;
  readonly env: string;
  readonly agent?: string;
  /** As given to `--model`. */
  readonly model?: string;
  /** The paper's name of that model, when the paper ran it. */
  readonly paperModel?: PaperModel;
  readonly strategy?: string;
  readonly maxTurns?: number;
  readonly handicap: boolean;
  readonly compat?: string;
  readonly engine?: string;
  /** Deterministic mode (`--deterministic`); runs that differ in it are not combined. */
  readonly deterministic?: boolean;
}

/** A figure of a run beside the paper's figure for the same setting. */
export interface PaperComparison {
  readonly group: string;
  readonly metric: PaperMetric;
  /** The run's figure on the paper's scale: a percentage for rates, turns for `meanTurns`. */
  readonly measured: number;
  readonly paper: number;
  /** measured − paper (percentage points for rates). */
  readonly difference: number;
  readonly source: PaperSource;
}

/** The report of a run (or of several runs together): metrics overall and by group, and the paper's. */
export interface RunReport {
  readonly title: string;
  readonly directories: readonly string[];
  readonly setting: ReportSetting;
  readonly overall: Metrics;
  readonly byGroup: Readonly<Record<string, Metrics>>;
  readonly paper: readonly PaperComparison[];
}

/** The environment of a dataset id, for runs without `summary.json`. */
function envOfDataset(dataset: string): string {
  const family = dataset.split('/')[0] ?? '';
  const envs: Record<string, string> = {
    spider: 'sql',
    wikisql: 'sql',
    bird: 'sql',
    nl2bash: 'bash',
    mbpp: 'python',
    ctf: 'ctf',
  };
  return envs[family] ?? 'unknown';
}

function settingOf(run: RunDirectory): ReportSetting {
  const summary = run.summary;
  if (summary === undefined) {
    const dataset = run.episodes[0]?.dataset ?? 'unknown';
    return { dataset, env: envOfDataset(dataset), handicap: false };
  }
  const paperModel = paperModelName(summary.model);
  return {
    dataset: summary.dataset,
    env: summary.env,
    agent: summary.agent,
    ...(summary.model !== undefined ? { model: summary.model } : {}),
    ...(paperModel !== undefined ? { paperModel } : {}),
    ...(summary.strategy !== undefined ? { strategy: summary.strategy } : {}),
    ...(summary.maxTurns !== undefined ? { maxTurns: summary.maxTurns } : {}),
    handicap: summary.handicap ?? false,
    ...(summary.compat !== undefined ? { compat: summary.compat } : {}),
    ...(summary.engine !== undefined ? { engine: summary.engine } : {}),
    ...(summary.deterministic !== undefined ? { deterministic: summary.deterministic } : {}),
  };
}

/** The run's figure on the paper's scale. */
function measuredValue(metrics: Metrics, metric: PaperMetric): number {
  return metric === 'meanTurns' ? metrics.meanTurns : metrics[metric] * 100;
}

function comparisons(
  setting: ReportSetting,
  overall: Metrics,
  byGroup: Readonly<Record<string, Metrics>>,
): PaperComparison[] {
  const matches = paperFiguresFor({
    env: setting.env,
    dataset: setting.dataset,
    model: setting.paperModel,
    strategy: setting.strategy,
    maxTurns: setting.maxTurns,
    handicap: setting.handicap,
  });
  return matches.flatMap(({ group, metric, figure }) => {
    const metrics = group === 'all' ? overall : byGroup[group];
    if (metrics === undefined || metrics.n === 0) return [];
    const measured = measuredValue(metrics, metric);
    return [
      {
        group,
        metric,
        measured,
        paper: figure.value,
        difference: measured - figure.value,
        source: figure.source,
      },
    ];
  });
}

function report(
  title: string,
  directories: readonly string[],
  setting: ReportSetting,
  episodes: readonly EpisodeRecord[],
): RunReport {
  const overall = computeMetrics(episodes);
  const byGroup = metricsByGroup(episodes);
  return { title, directories, setting, overall, byGroup, paper: comparisons(setting, overall, byGroup) };
}

/** The report of one run directory, with the paper's figures for its setting. */
export function runReport(run: RunDirectory): RunReport {
  return report(run.directory, [run.directory], settingOf(run), run.episodes);
}

/**
 * The dataset several runs make together: the same one, or all of NL2Bash when they are its file
 * systems (the paper's Bash figures are over the four); undefined when they differ otherwise.
 */
function combinedDataset(datasets: readonly string[]): string | undefined {
  const distinct = [...new Set(datasets)];
  if (distinct.length === 1) return distinct[0];
  return distinct.every((dataset) => /^nl2bash\/fs[1-4]$/.test(dataset)) ? 'nl2bash' : undefined;
}

/**
 * The report of several runs together: every group of every run. It is compared with the paper
 * only when the runs share their setting (model, strategy, turns, hint) and together make one
 * dataset, e.g. four NL2Bash file systems played with the same model.
 */
export function combinedReport(runs: readonly RunDirectory[]): RunReport {
  const settings = runs.map(settingOf);
  const first = settings[0]!;
  // The same model: the same paper model (replays of the paper's per-file-system files), else the same --model.
  const key = (s: ReportSetting) =>
    JSON.stringify([
      s.env,
      s.paperModel ?? s.model,
      s.strategy,
      s.maxTurns,
      s.handicap,
      s.compat,
      s.engine,
      s.deterministic,
    ]);
  const dataset = combinedDataset(settings.map((s) => s.dataset));
  const shared = settings.every((s) => key(s) === key(first)) && dataset !== undefined;
  const { model: _model, ...withoutModel } = first;
  const oneModel = settings.every((s) => s.model === first.model);
  const setting: ReportSetting = shared
    ? { ...(oneModel ? first : withoutModel), dataset }
    : { dataset: dataset ?? 'several', env: first.env, handicap: false };
  const title = `combined (${runs.length} runs)`;
  const episodes = runs.flatMap((run) => run.episodes);
  const combined = report(
    title,
    runs.map((run) => run.directory),
    setting,
    episodes,
  );
  return shared ? combined : { ...combined, paper: [] };
}
