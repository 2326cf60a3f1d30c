import type { Task } from '../core/task.js';
import type { Agent, EpisodePolicy } from './agent.js';

/** Plays each task's gold solution: the environment's self-test. */
export class GoldAgent implements Agent {
  readonly name = 'gold';
  readonly #actions: (task: Task) => string[];

  constructor(goldActions: (task: Task) => string[]) {
    this.#actions = goldActions;
  }

  episode(task: Task): EpisodePolicy {
    const actions = this.#actions(task);
    return { act: async ({ turn }) => actions[turn] };
  }
}
