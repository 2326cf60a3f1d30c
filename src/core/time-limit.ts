import type { Action } from './action.js';
import type { Env, ForkResult, Observation, ResetInfo, ResetOptions, Score, StepResult } from './env.js';
import { EnvError } from './errors.js';

/**
 * Wraps an env and truncates episodes after `maxTurns` steps, as Gymnasium's TimeLimit does.
 * The env itself never counts turns.
 */
export class TimeLimit implements Env {
  readonly #env: Env;
  readonly #maxTurns: number;
  #turns = 0;
  #ended = true;

  /**
   * `continued`: the env is mid-episode with that many turns taken (a fork's copy), so the episode
   * goes on without a reset.
   */
  constructor(env: Env, maxTurns: number, continued?: { readonly turnsTaken: number }) {
    if (!Number.isInteger(maxTurns) || maxTurns < 1) {
      throw new EnvError('ENV_INVALID_ACTION', `maxTurns must be a positive integer, got ${maxTurns}`);
    }
    this.#env = env;
    this.#maxTurns = maxTurns;
    if (continued) {
      this.#turns = continued.turnsTaken;
      this.#ended = continued.turnsTaken >= maxTurns;
    }
  }

  /** Steps taken in the current episode. */
  get turns(): number {
    return this.#turns;
  }

  async reset(options?: ResetOptions): Promise<{ observation: Observation; info: ResetInfo }> {
    const result = await this.#env.reset(options);
    this.#turns = 0;
    this.#ended = false;
    return result;
  }

  async step(action: Action | string): Promise<StepResult> {
    if (this.#ended) throw new EnvError('ENV_RESET_NEEDED', 'the episode has ended: call reset() first');
    const result = await this.#env.step(action);
    this.#turns += 1;
    const truncated = !result.terminated && this.#turns >= this.#maxTurns;
    if (result.terminated || truncated) this.#ended = true;
    return truncated ? { ...result, truncated: true } : result;
  }

  score(): Promise<Score> {
    return this.#env.score();
  }

  /** Copies of the episode (where the wrapped env can fork), each wrapped with the turns taken so far. */
  async fork(count: number): Promise<ForkResult> {
    if (!this.#env.fork)
      throw new EnvError('ENV_FORK_UNSUPPORTED', 'this environment cannot fork an episode');
    if (this.#ended) throw new EnvError('ENV_RESET_NEEDED', 'the episode has ended: call reset() first');
    const { envs, notCopied } = await this.#env.fork(count);
    return {
      envs: envs.map((copy) => new TimeLimit(copy, this.#maxTurns, { turnsTaken: this.#turns })),
      notCopied,
    };
  }

  close(): Promise<void> {
    return this.#env.close();
  }
}
