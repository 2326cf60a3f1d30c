import type { AgentTurn, EpisodePolicy, TurnRecord } from '../agents/agent.js';
import { episodeTotals, episodeUsageFields } from '../agents/llm/usage-totals.js';
import type { Action } from '../core/action.js';
import { formatAction, toAction } from '../core/action.js';
import type { Env, Observation } from '../core/env.js';
import { scoredTurnFields } from '../core/run-files/scored-turn-fields.js';
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
  /** When the turns run out without a submit, submit once more (the paper's ReAct loop). */
  readonly submitAtTurnLimit?: boolean;
}

/** True for an agent's turn object, as opposed to an action (which always has a `type`). */
function isAgentTurn(value: Action | string | AgentTurn): value is AgentTurn {
  return typeof value === 'object' && !('type' in value);
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
  let truncatedBy: 'max-turns' | 'tokens' | 'time' | undefined;
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
    const agentTurn = isAgentTurn(next) ? next : undefined;
    if (agentTurn?.stop) {
      truncatedBy = agentTurn.stop;
      break;
    }
    if (agentTurn && agentTurn.action === undefined) {
      // Nothing runs: the model is told how to answer instead, and the turn is inadmissible.
      const record: TurnRecord = {
        action: agentTurn.text ?? '',
        observation: agentTurn.observation ?? '',
        reward: 0,
        admissible: false,
        durationMs: 0,
        ...(agentTurn.llm ? { llm: agentTurn.llm } : {}),
      };
      turns.push(record);
      options.onTurn?.(record);
      observation = { text: record.observation, durationMs: 0 };
      reward = 0;
      continue;
    }
    const action = toAction(agentTurn ? agentTurn.action! : (next as Action | string));
    checkAbort();
    const step = await env.step(action);
    observation = step.observation;
    let scored = step.info.score;
    if (step.info.score?.goldCorrupt) goldCorrupt = true;
    scoreLimit = step.info.score?.scoreLimit ?? scoreLimit;
    if (action.type === 'code' && options.scoreEveryTurn) {
      const score = await env.score();
      reward = score.value;
      scored = score;
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
      ...scoredTurnFields(scored),
      ...(agentTurn?.llm ? { llm: agentTurn.llm } : {}),
    };
    turns.push(record);
    options.onTurn?.(record);
    terminated = step.terminated || (options.scoreEveryTurn && reward === 1);
  }
  if (
    !terminated &&
    truncatedBy === undefined &&
    options.submitAtTurnLimit &&
    turns.length >= options.maxTurns
  ) {
    // The paper's ReAct loop submits for the agent when its turns run out.
    checkAbort();
    const step = await env.step({ type: 'submit' });
    reward = step.reward;
    if (step.info.score?.goldCorrupt) goldCorrupt = true;
    scoreLimit = step.info.score?.scoreLimit ?? scoreLimit;
    const record: TurnRecord = {
      action: 'submit',
      observation: step.observation.text,
      reward,
      admissible: step.info.admissible,
      durationMs: step.observation.durationMs,
      ...scoredTurnFields(step.info.score),
    };
    turns.push(record);
    options.onTurn?.(record);
    terminated = step.terminated;
  }
  if (!terminated && truncatedBy === undefined && turns.length >= options.maxTurns) truncatedBy = 'max-turns';
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
    truncated: !terminated && truncatedBy !== undefined,
    ...(truncatedBy !== undefined && !terminated ? { truncatedBy } : {}),
    ...episodeUsageFields(episodeTotals({ turns })),
    ...(task.group !== undefined ? { group: task.group } : {}),
    ...(goldCorrupt ? { goldCorrupt: true } : {}),
    ...(scoreLimit !== undefined ? { scoreLimit } : {}),
    durationMs: performance.now() - started,
  };
}
