import type { EpisodeRecord } from './episode-record.js';
import type { Metrics } from './run-files/run-summary-schema.js';

export type { Metrics } from './run-files/run-summary-schema.js';

export function computeMetrics(episodes: readonly EpisodeRecord[]): Metrics {
  const n = episodes.length;
  if (n === 0) return { n: 0, solved: 0, successRate: 0, meanReward: 0, meanTurns: 0, errorRate: 0 };
  const solved = episodes.filter((episode) => episode.success).length;
  const sum = (values: number[]) => values.reduce((total, value) => total + value, 0);
  const errorShares = episodes.map((episode) =>
    episode.turns.length === 0
      ? 0
      : episode.turns.filter((turn) => !turn.admissible).length / episode.turns.length,
  );
  return {
    n,
    solved,
    successRate: solved / n,
    meanReward: sum(episodes.map((episode) => episode.maxReward)) / n,
    meanTurns: sum(episodes.map((episode) => episode.turnsTaken)) / n,
    errorRate: sum(errorShares) / n,
  };
}

/** Metrics per group (file system, hardness, tag), groups sorted by name. */
export function metricsByGroup(episodes: readonly EpisodeRecord[]): Record<string, Metrics> {
  const groups = new Map<string, EpisodeRecord[]>();
  for (const episode of episodes) {
    const group = episode.group ?? 'all';
    groups.set(group, [...(groups.get(group) ?? []), episode]);
  }
  return Object.fromEntries(
    [...groups.keys()].sort().map((group) => [group, computeMetrics(groups.get(group)!)] as const),
  );
}
