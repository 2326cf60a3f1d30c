import { expect } from 'vitest';

/** What expectEverySolved reads of an episode of episodes.jsonl. */
export interface SolvedEpisode {
  readonly taskId: string;
  readonly maxReward: number;
  readonly goldCorrupt?: boolean;
}

/** Asserts that every episode reached reward 1 and that no gold was flagged corrupt, naming any that did not. */
export function expectEverySolved(episodes: readonly SolvedEpisode[]): void {
  const unsolved = episodes
    .filter((episode) => episode.maxReward !== 1 || episode.goldCorrupt)
    .map(({ taskId, maxReward, goldCorrupt }) => ({ taskId, maxReward, corrupt: goldCorrupt ?? false }));
  expect(unsolved).toEqual([]);
}
