import type { TurnRecord } from '../../agents/agent.js';
import { type Action, formatAction } from '../../core/action.js';
import type { ResetInfo, StepResult } from '../../core/env.js';
import { scoredTurnFields } from '../../core/run-files/scored-turn-fields.js';
import type { Task } from '../../core/task.js';
import type { EpisodeRecord } from '../../harness/episode-record.js';
import { failedEpisodeRecord } from '../../harness/failed-episode-record.js';
import type { RunConfig } from '../../harness/run-config.js';
import type { RunSetupDescription } from '../../harness/run-plan.js';

/** How a session reached the server: its episodes are recorded as agent `serve:<transport>`. */
export type SessionTransport = 'ws' | 'http' | 'mcp';

/** An episode the server played, ended: its record and the configuration it was played in. */
export interface EndedEpisode {
  readonly record: EpisodeRecord;
  readonly config: RunConfig;
  readonly description: RunSetupDescription;
  readonly maxTurns: number;
  readonly transport: SessionTransport;
  readonly sessionId: string;
}

/** Where ended episodes go (`intercode serve --out`); called synchronously as each ends. */
export type EpisodeSink = (ended: EndedEpisode) => void;

/** What the tracker needs besides the turns. */
export interface TrackedEpisodeContext {
  readonly task: Task;
  readonly resetInfo: ResetInfo;
  readonly dataset: string;
  readonly config: RunConfig;
  readonly description: RunSetupDescription;
  readonly maxTurns: number;
  readonly transport: SessionTransport;
  readonly sessionId: string;
}

/**
 * The turns of one server episode, made into the record `intercode run` writes when the episode
 * ends: at done, cut short (a reset before done, the session closed or reaped, a step past its
 * deadline: `truncated`), or failed (an env error: a `failedEpisodeRecord`). Each turn's reward is
 * the one the client was sent. The record goes to the sink once; later calls do nothing.
 */
export class EpisodeTracker {
  readonly #context: TrackedEpisodeContext;
  readonly #sink: EpisodeSink;
  #started = performance.now();
  readonly #turns: TurnRecord[] = [];
  #scoreLimit: string | undefined;
  #goldCorrupt = false;
  #ended = false;

  constructor(context: TrackedEpisodeContext, sink: EpisodeSink) {
    this.#context = context;
    this.#sink = sink;
  }

  get ended(): boolean {
    return this.#ended;
  }

  /**
   * The tracker of a branch of this episode (a fork) played in session `sessionId`: the turns so far
   * and the start time are this episode's; from now on each records its own turns.
   */
  branch(sessionId: string): EpisodeTracker {
    const copy = new EpisodeTracker({ ...this.#context, sessionId }, this.#sink);
    copy.#started = this.#started;
    copy.#turns.push(...this.#turns.map((turn) => ({ ...turn })));
    copy.#scoreLimit = this.#scoreLimit;
    copy.#goldCorrupt = this.#goldCorrupt;
    return copy;
  }

  /** Adds a played step; a step that ends the episode records it. */
  turn(action: Action, result: StepResult): void {
    if (this.#ended) return;
    const score = result.info.score;
    if (score?.goldCorrupt) this.#goldCorrupt = true;
    this.#scoreLimit = score?.scoreLimit ?? this.#scoreLimit;
    this.#turns.push({
      action: formatAction(action),
      observation: result.observation.text,
      reward: result.reward,
      admissible: result.info.admissible,
      durationMs: result.observation.durationMs,
      ...scoredTurnFields(score),
    });
    if (result.terminated || result.truncated) this.#end(result.terminated, result.truncated);
  }

  /** The episode stopped before done: recorded as truncated, when at least one step was played. */
  cut(): void {
    if (this.#ended) return;
    if (this.#turns.length === 0) {
      this.#ended = true;
      return;
    }
    this.#end(false, true);
  }

  /** A step failed in the env: the episode is recorded with the error (no metrics count it). */
  fail(error: unknown): void {
    if (this.#ended) return;
    this.#ended = true;
    const { task, dataset } = this.#context;
    this.#emit(failedEpisodeRecord(task, dataset, error, performance.now() - this.#started));
  }

  #end(terminated: boolean, truncated: boolean): void {
    this.#ended = true;
    const { task, resetInfo, dataset, maxTurns } = this.#context;
    const turns = this.#turns;
    const erratum = resetInfo.erratum as { readonly gold?: unknown } | undefined;
    const maxReward = turns.length > 0 ? Math.max(...turns.map((turn) => turn.reward)) : 0;
    const byTurnLimit = truncated && turns.length >= maxTurns;
    this.#emit({
      taskId: task.id,
      index: task.index,
      dataset,
      query: task.query,
      ...(erratum?.gold !== undefined
        ? { gold: erratum.gold, erratum }
        : task.gold !== undefined
          ? { gold: task.gold }
          : {}),
      turns,
      reward: turns.at(-1)?.reward ?? 0,
      maxReward,
      success: maxReward === 1,
      turnsTaken: turns.length,
      terminated,
      truncated,
      ...(byTurnLimit ? { truncatedBy: 'max-turns' as const } : {}),
      ...(task.group !== undefined ? { group: task.group } : {}),
      ...(this.#goldCorrupt ? { goldCorrupt: true } : {}),
      ...(this.#scoreLimit !== undefined ? { scoreLimit: this.#scoreLimit } : {}),
      durationMs: performance.now() - this.#started,
    });
  }

  #emit(record: EpisodeRecord): void {
    const { config, description, maxTurns, transport, sessionId } = this.#context;
    try {
      this.#sink({ record, config, description, maxTurns, transport, sessionId });
    } catch {
      // The recorder's failure (a full disk) must not break the client's episode; it reports it itself.
    }
  }
}
