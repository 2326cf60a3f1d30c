import type { EpisodePolicy, TurnRecord } from '../agents/agent.js';
import { formatAction, toAction } from '../core/action.js';
import type { Env, Observation } from '../core/env.js';
import type { Task } from '../core/task.js';
import type { EpisodeRecord } from './episode-record.js';

export interface PlayOptions {
  readonly maxTurns: number;
  /**
   * Score after every action and stop at reward 1 (the paper's Try Again loop). Without it, only an
   * explicit `submit` is scored.
   */
  readonly scoreEveryTurn: boolean;
  readonly dataset: string;
  readonly signal?: AbortSignal;
  /** Called after each turn (the human agent shows reward parts with it). */
  readonly onTurn?: (turn: TurnRecord) => void;
}

/** Thrown when the run was interrupted mid-episode: the episode is not recorded. */
export class EpisodeAborted extends Error {}

/** Plays one episode of `task` with `policy` on `env` and returns its record. */
export async function playEpisode(
  env: Env,
  task: Task,
  policy: EpisodePolicy,
  options: PlayOptions,
): Promise<EpisodeRecord> {
  const started = performance.now();
  const turns: TurnRecord[] = [];
  let terminated = false;
  let goldCorrupt = false;
  let scoreLimit: string | undefined;
  let reward = 0;
  const checkAbort = () => {
    if (options.signal?.aborted) throw new EpisodeAborted('interrupted');
  };
  const { observation: first, info: resetInfo } = await env.reset({ taskId: task.id });
  // An env that corrects a wrong upstream gold (CTF errata) says so at reset; the record keeps the
  // gold actually used and the correction.
  const erratum = resetInfo.erratum as { readonly gold?: unknown } | undefined;
  let observation: Observation = first;
  for (let turn = 0; turn < options.maxTurns && !terminated; turn += 1) {
    checkAbort();
    const next = await policy.act({
      task,
      turn,
      history: turns,
      observation,
      reward,
      ...(options.signal ? { signal: options.signal } : {}),
    });
    if (next === undefined) break;
    const action = toAction(next);
    checkAbort();
    const step = await env.step(action);
    observation = step.observation;
    let parts = step.info.score?.parts;
    if (step.info.score?.goldCorrupt) goldCorrupt = true;
    scoreLimit = step.info.score?.scoreLimit ?? scoreLimit;
    if (action.type === 'code' && options.scoreEveryTurn) {
      const score = await env.score();
      reward = score.value;
      parts = score.parts;
      if (score.goldCorrupt) goldCorrupt = true;
      scoreLimit = score.scoreLimit ?? scoreLimit;
    } else if (action.type !== 'code') {
      reward = step.reward;
    }
    const record: TurnRecord = {
      action: formatAction(action),
      observation: step.observation.text,
      reward: action.type === 'code' && !options.scoreEveryTurn ? 0 : reward,
      admissible: step.info.admissible,
      durationMs: step.observation.durationMs,
      ...(parts ? { parts } : {}),
    };
    turns.push(record);
    options.onTurn?.(record);
    terminated = step.terminated || (options.scoreEveryTurn && reward === 1);
  }
  const maxReward = turns.length > 0 ? Math.max(...turns.map((turn) => turn.reward)) : 0;
  return {
    taskId: task.id,
    index: task.index,
    dataset: options.dataset,
    query: task.query,
    ...(erratum?.gold !== undefined
      ? { gold: erratum.gold, erratum }
      : task.gold !== undefined
        ? { gold: task.gold }
        : {}),
    turns,
    reward: turns.length > 0 ? turns[turns.length - 1]!.reward : 0,
    maxReward,
    success: maxReward === 1,
    turnsTaken: turns.length,
    terminated,
    truncated: !terminated && turns.length >= options.maxTurns,
    ...(task.group !== undefined ? { group: task.group } : {}),
    ...(goldCorrupt ? { goldCorrupt: true } : {}),
    ...(scoreLimit !== undefined ? { scoreLimit } : {}),
    durationMs: performance.now() - started,
  };
}
