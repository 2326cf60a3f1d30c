import type { AgentTurn, EpisodePolicy, TurnRecord } from '../../agents/agent.js';
import type { Action } from '../../core/action.js';
import type { Env, StepResult } from '../../core/env.js';
import { EnvError } from '../../core/errors.js';
import type { Task } from '../../core/task.js';
import type { EpisodeRecord } from '../../harness/episode-record.js';
import { failedEpisodeRecord } from '../../harness/failed-episode-record.js';
import { playEpisode } from '../../harness/play-episode.js';

/** A turn played for the client: its record and the env's step (exit code, timeout, score). */
export interface PlayedTurn {
  readonly turn: TurnRecord;
  readonly step: StepResult | undefined;
  /** Turns taken so far. */
  readonly turns: number;
  /** The episode ended with this turn (its record is written). */
  readonly ended: boolean;
  readonly record: EpisodeRecord | undefined;
}

interface Deferred {
  readonly promise: Promise<void>;
  readonly resolve: () => void;
}

function deferred(): Deferred {
  let resolve!: () => void;
  const promise = new Promise<void>((done) => {
    resolve = done;
  });
  return { promise, resolve };
}

/**
 * One episode played by the harness's own loop ({@link playEpisode}) with the MCP client as the
 * agent: the policy waits for the client's next action. The record is therefore exactly the one
 * `intercode run` writes. Stopped early (the client reset or went away), the episode ends at once
 * and its record says `truncated`.
 */
export class EpisodeInFlight {
  readonly task: Task;
  /** Settles once the record is made (never rejects); `onEnd` has run by then. */
  readonly finished: Promise<void>;
  #turns = 0;
  #ended = false;
  #stopped = false;
  #record: EpisodeRecord | undefined;
  #error: unknown;
  #lastTurn: TurnRecord | undefined;
  #lastStep: StepResult | undefined;
  #giveAction: ((next: Action | AgentTurn | undefined) => void) | undefined;
  /** Resolved when the loop waits for an action, or has ended. */
  #ready = deferred();

  /**
   * Starts the episode on `env` (its reset runs now). `onEnd` gets the record (an infrastructure
   * failure is a `failedEpisodeRecord`, and `envBroken` says the env must not be reused).
   */
  constructor(
    env: Env,
    task: Task,
    options: { readonly dataset: string; readonly maxTurns: number },
    onEnd: (record: EpisodeRecord, envBroken: boolean) => void,
  ) {
    this.task = task;
    const started = performance.now();
    const capturing: Env = {
      reset: (resetOptions) => env.reset(resetOptions),
      step: async (action) => {
        this.#lastStep = undefined;
        const step = await env.step(action);
        this.#lastStep = step;
        return step;
      },
      score: () => env.score(),
      close: () => env.close(),
    };
    const policy: EpisodePolicy = {
      act: () =>
        new Promise((resolve) => {
          // Stopped between turns: the loop ends here, with the turns it has.
          if (this.#stopped) return resolve(undefined);
          this.#giveAction = resolve;
          this.#ready.resolve();
        }),
    };
    this.finished = playEpisode(capturing, task, policy, {
      ...options,
      // The client decides when to submit: only a submit is scored, nothing is told early.
      scoreEveryTurn: false,
      onTurn: (turn) => {
        this.#turns += 1;
        this.#lastTurn = turn;
      },
    })
      .then(
        (record) => {
          // Cut by the client (reset, disconnect): truncated, though no turn limit was met.
          const cut = this.#stopped && !record.terminated && !record.truncated;
          this.#record = cut ? { ...record, truncated: true } : record;
          onEnd(this.#record, false);
        },
        (error: unknown) => {
          this.#error = error;
          this.#record = failedEpisodeRecord(task, options.dataset, error, performance.now() - started);
          onEnd(this.#record, true);
        },
      )
      .finally(() => {
        this.#ended = true;
        this.#ready.resolve();
      });
  }

  get ended(): boolean {
    return this.#ended;
  }

  get turns(): number {
    return this.#turns;
  }

  get record(): EpisodeRecord | undefined {
    return this.#record;
  }

  /** Waits for the env's reset: throws its error when it failed (the episode is then recorded). */
  async started(): Promise<void> {
    await this.#ready.promise;
    if (this.#error !== undefined) throw this.#error;
  }

  /**
   * Plays one action and waits until the loop asks for the next one or ends. Throws the env's
   * error for an infrastructure failure, and `ENV_RESET_NEEDED` when the episode is over.
   * Callers serialise their calls.
   */
  async play(action: Action): Promise<PlayedTurn> {
    await this.#ready.promise;
    const give = this.#giveAction;
    if (this.#ended || give === undefined) {
      throw new EnvError('ENV_RESET_NEEDED', 'the episode is over: call reset to start another one');
    }
    this.#giveAction = undefined;
    this.#ready = deferred();
    const before = this.#turns;
    give(action);
    await this.#ready.promise;
    if (this.#turns === before) {
      throw this.#error ?? new EnvError('ENV_RESET_NEEDED', 'the episode ended before the action ran');
    }
    return {
      turn: this.#lastTurn!,
      step: this.#lastStep,
      turns: this.#turns,
      ended: this.#ended,
      record: this.#record,
    };
  }

  /**
   * Ends the episode early: at once when the loop waits for an action, else after the turn in
   * flight. Resolves when its record is made.
   */
  async stop(): Promise<void> {
    this.#stopped = true;
    const give = this.#giveAction;
    this.#giveAction = undefined;
    give?.(undefined);
    await this.finished;
  }
}
