import type { Action } from '../core/action.js';
import type { Observation } from '../core/env.js';
import type { LlmTurn } from '../core/run-files/episode-record-schema.js';
import type { Task } from '../core/task.js';

/** One finished turn of an episode, as the agent and the run log see it. */
export interface TurnRecord {
  readonly action: string;
  readonly observation: string;
  readonly reward: number;
  readonly admissible: boolean;
  readonly durationMs: number;
  /** Reward parts of this turn's score, when the env reports them. */
  readonly parts?: Readonly<Record<string, number>>;
  /** A language-model agent's calls and parse of this turn. */
  readonly llm?: LlmTurn;
}

/** What an agent knows when it chooses its next action. */
export interface TurnContext {
  readonly task: Task;
  /** Turn number, from 0. */
  readonly turn: number;
  readonly history: readonly TurnRecord[];
  /** The last observation: the reset observation on the first turn. */
  readonly observation: Observation;
  readonly reward: number;
  readonly signal?: AbortSignal;
}

/** An agent's behaviour within one episode. */
export interface EpisodePolicy {
  /** The next action, or undefined when the agent has nothing more to do. */
  act(context: TurnContext): Promise<Action | string | undefined>;
  /** Releases what the episode held (a terminal, a model session). */
  close?(): Promise<void>;
}

/** Something that plays episodes: a script, a recorded trajectory, a person, a model. */
export interface Agent {
  /** `gold`, `replay`, `human`, `llm`. */
  readonly name: string;
  readonly model?: string;
  readonly strategy?: string;
  episode(task: Task): EpisodePolicy;
}
