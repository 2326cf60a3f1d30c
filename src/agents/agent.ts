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
  /** What the scorer saw on this turn: the score's details, JSON-safe and bounded (`boundDetails`). */
  readonly details?: Readonly<Record<string, unknown>>;
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

/**
 * A turn as a language-model agent returns it: the action with what the model did, or no action
 * (the model's output held none: nothing runs, `observation` is what the model is told instead, the
 * turn is inadmissible and counts in the error rate), or a stop (a per-episode token or time limit
 * was reached: the episode ends as truncated).
 */
export interface AgentTurn {
  readonly action?: Action | string;
  /** Without an action: the format reminder the model gets as this turn's observation. */
  readonly observation?: string;
  /** What the record shows as the action of a turn without one (the model's raw output). */
  readonly text?: string;
  readonly llm?: LlmTurn;
  /** End the episode now, as truncated, without playing this turn. */
  readonly stop?: 'tokens' | 'time';
}

/** An agent's behaviour within one episode. */
export interface EpisodePolicy {
  /** The next action, or undefined when the agent has nothing more to do. */
  act(context: TurnContext): Promise<Action | string | AgentTurn | undefined>;
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
  /**
   * Score after every code action and stop at reward 1 (the paper's Try Again loop); without it
   * only an explicit `submit` is scored. The harness's option decides when the agent says nothing.
   */
  readonly scoreEveryTurn?: boolean;
  /** When the turns run out without a submit, submit once more (the paper's ReAct loop). */
  readonly submitAtTurnLimit?: boolean;
}
