import { DatasetError } from '../../core/errors.js';
import type {
  ChatMessageData,
  ModelCallRecord,
  TurnRecordData,
} from '../../core/run-files/episode-record-schema.js';
import type { EpisodeRecord } from '../episode-record.js';
import { ATIF_VERSION, type AtifStep, type AtifToolCall, type AtifTrajectory } from './atif-schema.js';

/** What every trajectory of a run shares. */
export interface AtifRunContext {
  /** The run's name (its directory's name): the trajectories' `session_id`. */
  readonly runName: string;
  /** intercode's version: the `agent.version`. */
  readonly version: string;
  /** `llm`, `gold`, `replay`, `human`. */
  readonly agent: string;
  /** `provider:model`, for a language-model agent. */
  readonly model?: string;
  readonly strategy?: string;
  readonly env?: string;
  /** The run's shared prompt prefixes (`prefixes.json`), by name. */
  readonly prefixes: Readonly<Record<string, readonly ChatMessageData[]>>;
  /** The tools the model was offered (native tool calling), in the OpenAI function format ATIF takes. */
  readonly toolDefinitions?: readonly Record<string, unknown>[];
}

type Step = Omit<AtifStep, 'step_id'>;

const SOURCE = { system: 'system', user: 'user', assistant: 'agent' } as const;

function sameMessage(a: ChatMessageData, b: ChatMessageData): boolean {
  return a.role === b.role && a.content === b.content;
}

/** The tool calls of a model call; arguments that are not a JSON object keep their text in `extra`. */
function toolCalls(call: ModelCallRecord): AtifToolCall[] | undefined {
  if (!call.toolCalls?.length) return undefined;
  return call.toolCalls.map((toolCall) => {
    let parsed: unknown;
    try {
      parsed = JSON.parse(toolCall.argumentsText);
    } catch {
      parsed = undefined;
    }
    const isObject = typeof parsed === 'object' && parsed !== null && !Array.isArray(parsed);
    return {
      tool_call_id: toolCall.id,
      function_name: toolCall.name,
      arguments: isObject ? (parsed as Record<string, unknown>) : {},
      ...(isObject ? {} : { extra: { arguments_text: toolCall.argumentsText, arguments_valid: false } }),
    };
  });
}

/** The turn's outcome, for the `extra` of the step that ends it. */
function turnExtra(turn: TurnRecordData, index: number): Record<string, unknown> {
  return {
    turn: index,
    action: turn.action,
    reward: turn.reward,
    admissible: turn.admissible,
    duration_ms: turn.durationMs,
    ...(turn.parts ? { reward_parts: turn.parts } : {}),
    ...(turn.details ? { score_details: turn.details } : {}),
    ...(turn.llm?.formatError !== undefined ? { format_error: turn.llm.formatError } : {}),
    ...(turn.llm?.thought !== undefined ? { thought: turn.llm.thought } : {}),
    ...(turn.llm?.step !== undefined ? { plan_step: turn.llm.step } : {}),
  };
}

/** The agent step of one model call. */
function callStep(call: ModelCallRecord, context: AtifRunContext): Step {
  const calls = toolCalls(call);
  return {
    source: 'agent',
    ...(context.model !== undefined ? { model_name: context.model } : {}),
    message: call.output,
    ...(call.reasoning !== undefined ? { reasoning_content: call.reasoning } : {}),
    ...(calls ? { tool_calls: calls } : {}),
    metrics: {
      prompt_tokens: call.usage.input,
      completion_tokens: call.usage.output,
      cached_tokens: call.usage.cachedInput,
      ...(call.costUsd !== null ? { cost_usd: call.costUsd } : {}),
      extra: {
        reasoning_tokens: call.usage.reasoning,
        cache_creation_input_tokens: call.usage.cacheWrite,
        ...(call.costUsd === null ? { cost_unknown: true } : {}),
      },
    },
    llm_call_count: 1,
    extra: {
      finish_reason: call.finishReason,
      latency_ms: call.latencyMs,
      ...(call.retries.length > 0
        ? {
            retries: call.retries.map(({ attempt, reason, waitMs }) => ({
              attempt,
              reason,
              wait_ms: waitMs,
            })),
          }
        : {}),
      ...(call.cached ? { response_cache: true } : {}),
    },
  };
}

/**
 * The steps of an episode: the messages each model call was sent that the trajectory has not
 * shown yet (system and user steps, the shared prefix expanded; a message shown before and sent
 * again after the dialogue was cut is marked as copied context), then one agent step per call.
 * The call that ends a turn carries the turn's observation, and its reward and admissibility in
 * `extra`. A turn without model calls (a gold or replayed action, a forced submit) is one agent
 * step with `llm_call_count` 0.
 */
function episodeSteps(episode: EpisodeRecord, context: AtifRunContext): Step[] {
  const steps: Step[] = [];
  const shown = new Set<string>();
  let conversation: ChatMessageData[] = [];
  const anyCalls = episode.turns.some((turn) => (turn.llm?.calls.length ?? 0) > 0);
  if (!anyCalls) steps.push({ source: 'user', message: episode.query });
  episode.turns.forEach((turn, index) => {
    const calls = turn.llm?.calls ?? [];
    const observation = { results: [{ content: turn.observation }] };
    if (calls.length === 0) {
      steps.push({
        source: 'agent',
        message: turn.action,
        observation,
        llm_call_count: 0,
        extra: turnExtra(turn, index),
      });
      return;
    }
    calls.forEach((call, position) => {
      const prefix = call.prefix === undefined ? [] : context.prefixes[call.prefix];
      if (prefix === undefined) {
        throw new DatasetError(
          'DATASET_INVALID',
          `episode ${episode.taskId}, turn ${index}: its model call names the shared prompt prefix ${call.prefix}, which prefixes.json of the run lacks`,
        );
      }
      const sent = [...prefix, ...call.messages];
      let common = 0;
      while (
        common < conversation.length &&
        common < sent.length &&
        sameMessage(conversation[common]!, sent[common]!)
      )
        common++;
      for (const message of sent.slice(common)) {
        // A tool result is the observation the previous agent step already carries.
        if (message.role === 'tool') continue;
        const key = `${message.role}\u0000${message.content}`;
        steps.push({
          source: SOURCE[message.role],
          message: message.content,
          ...(message.role === 'assistant' ? { llm_call_count: 0 } : {}),
          ...(shown.has(key) || message.role === 'assistant' ? { is_copied_context: true } : {}),
        });
        shown.add(key);
      }
      const step = callStep(call, context);
      const last = position === calls.length - 1;
      const sourceCall = call.toolCalls?.[0]?.id;
      steps.push(
        last
          ? {
              ...step,
              observation: {
                results: [
                  { ...(sourceCall ? { source_call_id: sourceCall } : {}), content: turn.observation },
                ],
              },
              extra: {
                ...step.extra,
                ...turnExtra(turn, index),
                ...(calls.length > 1 ? { calls_in_turn: calls.length } : {}),
              },
            }
          : { ...step, extra: { ...step.extra, turn: index } },
      );
      conversation = [...sent, { role: 'assistant', content: call.output }];
    });
  });
  return steps;
}

/** One episode of a run as an ATIF trajectory (not yet checked: see `atifTrajectorySchema`). */
export function episodeTrajectory(episode: EpisodeRecord, context: AtifRunContext): AtifTrajectory {
  const steps = episodeSteps(episode, context).map((step, index) => ({ step_id: index + 1, ...step }));
  const calls = episode.turns.flatMap((turn) => turn.llm?.calls ?? []);
  const total = (pick: (call: ModelCallRecord) => number) => calls.reduce((sum, call) => sum + pick(call), 0);
  const costKnown = calls.every((call) => call.costUsd !== null);
  return {
    schema_version: ATIF_VERSION,
    session_id: context.runName,
    trajectory_id: `${context.runName}/${episode.taskId}`,
    agent: {
      name: 'intercode',
      version: context.version,
      ...(context.model !== undefined ? { model_name: context.model } : {}),
      ...(context.toolDefinitions ? { tool_definitions: [...context.toolDefinitions] } : {}),
      extra: {
        agent: context.agent,
        ...(context.strategy !== undefined ? { strategy: context.strategy } : {}),
      },
    },
    steps,
    ...(episode.error !== undefined ? { notes: `the episode could not be played: ${episode.error}` } : {}),
    final_metrics: {
      total_prompt_tokens: total((call) => call.usage.input),
      total_completion_tokens: total((call) => call.usage.output),
      total_cached_tokens: total((call) => call.usage.cachedInput),
      ...(costKnown ? { total_cost_usd: total((call) => call.costUsd ?? 0) } : {}),
      total_steps: steps.length,
      extra: {
        reasoning_tokens: total((call) => call.usage.reasoning),
        llm_call_count: calls.length,
        ...(costKnown ? {} : { cost_unknown: true }),
        reward: episode.reward,
        max_reward: episode.maxReward,
        success: episode.success,
        turns_taken: episode.turnsTaken,
        terminated: episode.terminated,
        truncated: episode.truncated,
        ...(episode.truncatedBy !== undefined ? { truncated_by: episode.truncatedBy } : {}),
        ...(episode.error !== undefined ? { error: episode.error } : {}),
      },
    },
    extra: {
      task_id: episode.taskId,
      index: episode.index,
      dataset: episode.dataset,
      ...(context.env !== undefined ? { env: context.env } : {}),
      query: episode.query,
      ...(episode.group !== undefined ? { group: episode.group } : {}),
      ...(episode.gold !== undefined ? { gold: episode.gold } : {}),
    },
  };
}
