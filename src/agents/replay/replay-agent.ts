import type { Task } from '../../core/task.js';
import type { Agent, EpisodePolicy } from '../agent.js';
import { matchRecorded, type RecordedEpisode, readRecordedTrajectories } from './recorded-trajectories.js';

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

  /** True when the trajectories hold an episode for this task. */
  has(task: Task): boolean {
    return matchRecorded(this.#episodes, task) !== undefined;
  }

  episode(task: Task): EpisodePolicy {
    const actions = matchRecorded(this.#episodes, task)?.actions ?? [];
    return {
      act: async ({ turn }) => {
        const action = actions[turn];
        return action === undefined || action === 'blocked' ? undefined : action;
      },
    };
  }
}
