import type { EpisodeRecord } from '../harness/episode-record.js';
import type { TurnPoint } from './viewer-api.js';

/** The turn at which an episode was first solved (a turn that scored 1), or undefined. */
function solvedAtTurn(episode: EpisodeRecord): number | undefined {
  if (!episode.success) return undefined;
  const index = episode.turns.findIndex((turn) => turn.reward === 1);
  return index === -1 ? episode.turnsTaken : index + 1;
}

/**
 * The paper's "success rate by turn" curve: for each turn t from 1 to the run's turn limit (else
 * its longest episode), the percent of the scored episodes (infrastructure errors left out, as in
 * the metrics) solved at or before turn t. A single-turn agent's episodes are solved at turn 1.
 */
export function successByTurn(episodes: readonly EpisodeRecord[], maxTurns?: number): TurnPoint[] {
  const scored = episodes.filter((episode) => episode.error === undefined);
  const last = Math.max(1, maxTurns ?? 0, ...scored.map((episode) => episode.turnsTaken));
  const solvedAt = new Array<number>(last + 1).fill(0);
  for (const episode of scored) {
    const turn = solvedAtTurn(episode);
    if (turn !== undefined) solvedAt[Math.min(Math.max(turn, 1), last)]! += 1;
  }
  const points: TurnPoint[] = [];
  let solved = 0;
  for (let turn = 1; turn <= last; turn += 1) {
    solved += solvedAt[turn]!;
    points.push({ turn, solvedPercent: scored.length === 0 ? 0 : (100 * solved) / scored.length });
  }
  return points;
}

/** Scored episodes by their best reward in ten bins: [0, 0.1), …, [0.9, 1.0]. */
export function rewardBins(episodes: readonly EpisodeRecord[]): number[] {
  const bins = new Array<number>(10).fill(0);
  for (const episode of episodes) {
    if (episode.error !== undefined) continue;
    const reward = Math.min(Math.max(episode.maxReward, 0), 1);
    bins[Math.min(9, Math.floor(reward * 10))]! += 1;
  }
  return bins;
}
