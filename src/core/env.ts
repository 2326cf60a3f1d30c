import type { Action } from './action.js';

/** What the agent sees after an action. */
export interface Observation {
  /** Text for the agent: command output, rendered rows, an error message. */
  readonly text: string;
  /** Exit code of a command, when the environment runs commands. */
  readonly exitCode?: number;
  /** Result rows of a query, when the environment runs queries. */
  readonly rows?: readonly (readonly unknown[])[];
  readonly columns?: readonly string[];
  /** Present when the output was cut: the original size in bytes (text) or in rows (result sets). */
  readonly truncated?: { readonly originalBytes?: number; readonly originalRows?: number };
  /** True when the action was stopped by its time limit. */
  readonly timedOut?: boolean;
  readonly durationMs: number;
}

/** Reward of a state, with its parts. */
export interface Score {
  readonly value: number;
  readonly parts?: Readonly<Record<string, number>>;
  readonly details?: Readonly<Record<string, unknown>>;
  /** The gold solution itself failed; the reward cannot be trusted. */
  readonly goldCorrupt?: boolean;
  /**
   * The scorer could not finish within its bounds (the agent's file system too large, too deep, or
   * changing under it): `value` is 0 and this says why.
   */
  readonly scoreLimit?: string;
}

export interface ResetOptions {
  readonly taskId?: string;
  readonly index?: number;
  /** Only with a seed does reset pick a task at random. */
  readonly seed?: number;
}

export interface ResetInfo {
  readonly taskId: string;
  readonly index: number;
  readonly query: string;
  readonly gold?: unknown;
  readonly [key: string]: unknown;
}

export interface StepInfo {
  /** The action executed without error (exit code 0, query ran, no exception). */
  readonly admissible: boolean;
  readonly score?: Score;
  readonly [key: string]: unknown;
}

export interface StepResult {
  readonly observation: Observation;
  readonly reward: number;
  /** The episode ended by itself (submit, skip). */
  readonly terminated: boolean;
  /** The episode was cut from outside (turn limit). */
  readonly truncated: boolean;
  readonly info: StepInfo;
}

/** The copies of {@link Env.fork}. */
export interface ForkResult {
  /** Independent environments, each in the state the forked one was in, mid-episode. */
  readonly envs: Env[];
  /** What the copies do not have of the original's state (each a sentence); empty when everything was copied. */
  readonly notCopied: readonly string[];
}

/** What an env keeps prepared ahead of need between episodes (see {@link Env.warmPool}). */
export interface WarmPoolStats {
  /** Sandboxes (or database copies) ready and idle, waiting for the next episode. */
  readonly idle: number;
  /** Their memory (proportional set size of their processes), in bytes. */
  readonly memoryBytes: number;
  /** The most the env keeps idle at once. */
  readonly limit: number;
}

/** The environment contract: Gymnasium semantics with named fields. */
export interface Env {
  reset(options?: ResetOptions): Promise<{ observation: Observation; info: ResetInfo }>;
  step(action: Action | string): Promise<StepResult>;
  /** Reward of the current state without ending the episode. */
  score(): Promise<Score>;
  /**
   * Optional: `count` independent copies of the current episode (after `reset`), for group rollouts
   * and tree search without replaying the history. Each copy is an `Env` of its own (close it); the
   * original goes on unchanged. Throws `ENV_FORK_UNSUPPORTED` where the state cannot be copied.
   */
  fork?(count: number): Promise<ForkResult>;
  /**
   * Optional: what the env holds prepared for its next episode (a warm pool: sandboxes reset, shells
   * and interpreters started while the current episode runs), so that `reset` does not wait for them.
   */
  warmPool?(): Promise<WarmPoolStats>;
  close(): Promise<void>;
}
