import type { EpisodeRecord } from './episode-record.js';
import { computeMetrics, metricsByGroup } from './metrics.js';

/** `summary.json` of a run directory (DESIGN §8). */
export interface RunSummary {
  readonly dataset: string;
  readonly env: string;
  readonly agent: string;
  readonly model?: string;
  readonly strategy?: string;
  /** The sandbox backend, for environments that run in sandboxes. */
  readonly backend?: string;
  /** The SQL engine, for the SQL environment. */
  readonly engine?: string;
  readonly n: number;
  readonly solved: number;
  readonly successRate: number;
  readonly meanReward: number;
  readonly meanTurns: number;
  readonly errorRate: number;
  readonly byGroup: Readonly<Record<string, { n: number; successRate: number; meanReward: number }>>;
  readonly durationMs: number;
  /** Episodes that failed to play (infrastructure errors). */
  readonly episodeErrors: number;
  /** False when the run was interrupted before every selected task was played. */
  readonly complete: boolean;
  /** Selected tasks not played because the environment cannot run them here (not counted in `n`). */
  readonly skipped?: readonly SkippedTask[];
}

/** A task a run left out, and why (it needs the internet, its files are missing). */
export interface SkippedTask {
  readonly taskId: string;
  readonly reason: string;
}

export interface RunDescription {
  readonly dataset: string;
  readonly env: string;
  readonly agent: string;
  readonly model?: string;
  readonly strategy?: string;
  /** The sandbox backend, for environments that run in sandboxes. */
  readonly backend?: string;
  /** The SQL engine, for the SQL environment. */
  readonly engine?: string;
}

export function summarize(
  description: RunDescription,
  episodes: readonly EpisodeRecord[],
  durationMs: number,
  complete: boolean,
): RunSummary {
  const metrics = computeMetrics(episodes);
  const byGroup = Object.fromEntries(
    Object.entries(metricsByGroup(episodes)).map(([group, m]) => [
      group,
      { n: m.n, successRate: m.successRate, meanReward: m.meanReward },
    ]),
  );
  return {
    ...description,
    ...metrics,
    byGroup,
    durationMs,
    episodeErrors: episodes.filter((episode) => episode.error !== undefined).length,
    complete,
  };
}
