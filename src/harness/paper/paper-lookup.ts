import type { PaperFigure, PaperMetric, PaperModel } from './paper-figure.js';
import { PAPER_FIGURES } from './paper-figures.js';

/** What decides which of the paper's figures a run compares with. */
export interface PaperSetting {
  /** `sql`, `bash`, … */
  readonly env: string;
  /** Dataset id: the paper ran `spider/dev` and NL2Bash (`nl2bash`, or one file system `nl2bash/fs2`). */
  readonly dataset: string;
  /** The paper's name of the model (see `paperModelName`). */
  readonly model: PaperModel | undefined;
  readonly strategy: string | undefined;
  readonly maxTurns: number | undefined;
  readonly handicap: boolean;
}

/** A figure of the paper for a row (group) and metric of a run's report. */
export interface PaperMatch {
  /** The run's group (`all`, `easy`, `fs2`, …). */
  readonly group: string;
  /** The run's metric the figure is compared with. */
  readonly metric: PaperMetric;
  readonly figure: PaperFigure;
}

/** The groups of the run a figure of `group` applies to, for this dataset. */
function runGroups(dataset: string, env: string, group: string): string[] {
  if (env === 'sql') return dataset === 'spider/dev' ? [group] : [];
  if (env !== 'bash') return [];
  if (dataset === 'nl2bash') return [group];
  // One file system: its figure is the run's overall figure too.
  const fs = /^nl2bash\/(fs[1-4])$/.exec(dataset)?.[1];
  return fs !== undefined && group === fs ? [fs, 'all'] : [];
}

/**
 * The run metric a figure is compared with, or undefined when the figure is of another setting. A
 * single-turn run (`single`, or one turn) compares its success rate with the paper's single-turn
 * figures, whether the paper made them with their own one-turn runs or took the first turn of its
 * Try Again runs; a multi-turn run compares with the figures of the same strategy and turn limit,
 * its first-turn success with the single-turn figures taken from such runs.
 */
function runMetric(figure: PaperFigure, setting: PaperSetting): PaperMetric | undefined {
  if (figure.handicap !== setting.handicap) return undefined;
  const singleTurn = setting.strategy === 'single' || setting.maxTurns === 1;
  if (singleTurn) {
    const isSingle = figure.strategy === 'single' || figure.metric === 'firstTurnSuccessRate';
    return isSingle && setting.strategy !== undefined ? 'successRate' : undefined;
  }
  if (figure.strategy !== setting.strategy) return undefined;
  const turnsAgree =
    figure.maxTurns === undefined || setting.maxTurns === undefined || figure.maxTurns === setting.maxTurns;
  return turnsAgree ? figure.metric : undefined;
}

/**
 * The paper's figures for a run's setting, at most one per group and metric (a figure printed in
 * two tables is taken from the first). Empty for a setting the paper did not measure (another
 * model, dataset or strategy).
 */
export function paperFiguresFor(setting: PaperSetting): PaperMatch[] {
  if (setting.model === undefined) return [];
  const matches = new Map<string, PaperMatch>();
  for (const figure of PAPER_FIGURES) {
    if (figure.env !== setting.env || figure.model !== setting.model) continue;
    const metric = runMetric(figure, setting);
    if (metric === undefined) continue;
    for (const group of runGroups(setting.dataset, setting.env, figure.group)) {
      const key = `${group}\u0000${metric}`;
      if (!matches.has(key)) matches.set(key, { group, metric, figure });
    }
  }
  return [...matches.values()];
}
