import type { Task } from '../../core/task.js';
import type { Agent, EpisodePolicy } from '../agent.js';
import {
  exactRecorded,
  matchRecorded,
  type RecordedEpisode,
  readRecordedTrajectories,
} from './recorded-trajectories.js';

/**
 * Re-executes the actions of recorded trajectories in order. A recorded `blocked` action (the
 * original policy failed to answer) ends the episode, as it did in the recording.
 */
export class ReplayAgent implements Agent {
  readonly name = 'replay';
  readonly #episodes: readonly RecordedEpisode[];

  constructor(paths: readonly string[]) {
    this.#episodes = paths.flatMap((path) => readRecordedTrajectories(path));
  }

  #claimed = new Set<RecordedEpisode>();

  /**
   * Tells the agent every task of the dataset, so that an episode recorded under one task's id or
   * position is never replayed for another task that happens to share its query text.
   */
  bind(tasks: readonly Task[]): void {
    this.#claimed = new Set(
      tasks.map((task) => exactRecorded(this.#episodes, task)).filter((episode) => episode !== undefined),
    );
  }

  /** True when the trajectories hold an episode for this task. */
  has(task: Task): boolean {
    return matchRecorded(this.#episodes, task, this.#claimed) !== undefined;
  }

  episode(task: Task): EpisodePolicy {
    const actions = matchRecorded(this.#episodes, task, this.#claimed)?.actions ?? [];
    return {
      act: async ({ turn }) => {
        const action = actions[turn];
        return action === undefined || action === 'blocked' ? undefined : action;
      },
    };
  }
}
