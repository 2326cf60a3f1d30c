import { addUsage, NO_USAGE, type TokenUsage } from '../agents/llm/model-client.js';
import type { EpisodeRecord } from './episode-record.js';
import type { Metrics } from './run-files/run-summary-schema.js';

export type { Metrics } from './run-files/run-summary-schema.js';

const sum = (values: readonly number[]) => values.reduce((total, value) => total + value, 0);

/** The paper's Error % of one episode: its share of inadmissible turns (0 without turns). */
function inadmissibleShare(episode: EpisodeRecord): number {
  const { turns } = episode;
  return turns.length === 0 ? 0 : turns.filter((turn) => !turn.admissible).length / turns.length;
}

/**
 * Tokens and cost of episodes: the sum of their usage, and the sum of their costs, `null` as soon
 * as one model call had no price (an unknown cost is never read as free). Episodes without model
 * calls add nothing.
 */
export function usageAndCost(episodes: readonly EpisodeRecord[]): {
  usage: TokenUsage;
  costUsd: number | null;
} {
  const usage = episodes.reduce<TokenUsage>((total, episode) => addUsage(total, episode.usage ?? NO_USAGE), {
    ...NO_USAGE,
  });
  const costUsd = episodes.some((episode) => episode.costUsd === null)
    ? null
    : sum(episodes.map((episode) => episode.costUsd ?? 0));
  return { usage, costUsd };
}

/**
 * The paper's figures of a set of episodes (analysis of arXiv 2306.14898): success rate (maxReward
 * == 1), first-turn success (the first turn scored 1), mean turns taken, Error % (per episode the
 * share of inadmissible turns, averaged over episodes) and mean reward. Episodes that could not be
 * played (an infrastructure `error`: a dead endpoint, a sandbox that did not start) are left out of
 * these figures and counted in `episodeErrors`: they say nothing about the model, and `--resume`
 * plays them again. Tokens and cost count every episode, failed ones included.
 */
export function computeMetrics(episodes: readonly EpisodeRecord[]): Metrics {
  const scored = episodes.filter((episode) => episode.error === undefined);
  const n = scored.length;
  const solved = scored.filter((episode) => episode.success).length;
  const firstTurnSolved = scored.filter((episode) => episode.turns[0]?.reward === 1).length;
  const mean = (values: readonly number[]) => (n === 0 ? 0 : sum(values) / n);
  return {
    n,
    solved,
    successRate: n === 0 ? 0 : solved / n,
    meanReward: mean(scored.map((episode) => episode.maxReward)),
    meanTurns: mean(scored.map((episode) => episode.turnsTaken)),
    errorRate: mean(scored.map(inadmissibleShare)),
    firstTurnSolved,
    firstTurnSuccessRate: n === 0 ? 0 : firstTurnSolved / n,
    ...usageAndCost(episodes),
    episodeErrors: episodes.length - n,
  };
}

/** Metrics per group (file system, hardness, tag), groups sorted by name. */
export function metricsByGroup(episodes: readonly EpisodeRecord[]): Record<string, Metrics> {
  const groups = new Map<string, EpisodeRecord[]>();
  for (const episode of episodes) {
    const group = episode.group ?? 'all';
    const members = groups.get(group);
    if (members) members.push(episode);
    else groups.set(group, [episode]);
  }
  return Object.fromEntries(
    [...groups.keys()].sort().map((group) => [group, computeMetrics(groups.get(group)!)] as const),
  );
}
