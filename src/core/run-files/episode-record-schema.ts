import { z } from 'zod';
import { EPISODE_RECORD_VERSION } from './episode-line.js';
import type { VersionedFormat } from './versioned-format.js';

/** Tokens of a model call, a turn, an episode or a run (`input` includes cached tokens). */
export const tokenUsageSchema = z.object({
  input: z.number(),
  output: z.number(),
  cachedInput: z.number(),
  cacheWrite: z.number(),
  reasoning: z.number(),
});

/** A message sent to a model, as plain data. */
export const chatMessageSchema = z.object({
  role: z.enum(['system', 'user', 'assistant', 'tool']),
  content: z.string(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), argumentsText: z.string() })).optional(),
  toolCallId: z.string().optional(),
  toolName: z.string().optional(),
  cacheBreakpoint: z.boolean().optional(),
});

/** One call of a model within a turn (a strategy may make several: a plan, then a step). */
export const modelCallRecordSchema = z.object({
  /**
   * The messages sent. When they start with the run's shared prefix (system prompt,
   * demonstrations), `prefix` names it (`prefixes.json` of the run directory holds it once) and
   * `messages` holds only what follows.
   */
  prefix: z.string().optional(),
  messages: z.array(chatMessageSchema).readonly(),
  /** The model's raw output text. */
  output: z.string(),
  reasoning: z.string().optional(),
  toolCalls: z.array(z.object({ id: z.string(), name: z.string(), argumentsText: z.string() })).optional(),
  finishReason: z.string(),
  usage: tokenUsageSchema,
  /** Cost in US dollars; `null` when the model has no price. */
  costUsd: z.number().nullable(),
  latencyMs: z.number(),
  retries: z.array(z.object({ attempt: z.number(), reason: z.string(), waitMs: z.number() })).readonly(),
  /** Answered from the response cache: no request was sent. */
  cached: z.boolean().optional(),
});

/** What a language-model agent did in a turn. */
export const llmTurnSchema = z.object({
  calls: z.array(modelCallRecordSchema).readonly(),
  /** The model's output held no runnable action: nothing ran and it got a format reminder. */
  formatError: z.string().optional(),
  /** The thought of a ReAct turn, the step of a Plan & Solve turn. */
  thought: z.string().optional(),
  step: z.string().optional(),
});

/** One finished turn of an episode in `episodes.jsonl` (the agents' `TurnRecord`). */
export const turnRecordSchema = z.object({
  action: z.string(),
  observation: z.string(),
  reward: z.number(),
  admissible: z.boolean(),
  durationMs: z.number(),
  /** Reward parts of this turn's score, when the env reports them. */
  parts: z.record(z.string(), z.number()).readonly().optional(),
  /**
   * What the scorer saw on this turn (the score's `details`, bounded by `boundDetails`): gold
   * output, file changes, rows, tests; per environment in docs/reference/episodes-jsonl.md.
   */
  details: z.record(z.string(), z.unknown()).readonly().optional(),
  /** A language-model agent's calls and parse of this turn. */
  llm: llmTurnSchema.optional(),
});

/**
 * One line of `episodes.jsonl` (DESIGN §8), without its `schemaVersion`: the file format's single
 * source of truth, from which `EpisodeRecord` is inferred.
 */
export const episodeRecordSchema = z.object({
  taskId: z.string(),
  index: z.int().min(0),
  /** Which of the task's episodes this is (`--samples N`: 0 … N-1); absent means 0. */
  sample: z.int().min(0).optional(),
  dataset: z.string(),
  query: z.string(),
  gold: z.unknown().optional(),
  turns: z.array(turnRecordSchema.readonly()).readonly(),
  /** Reward of the last scored turn. */
  reward: z.number(),
  maxReward: z.number(),
  /** maxReward == 1. */
  success: z.boolean(),
  turnsTaken: z.int().min(0),
  terminated: z.boolean(),
  truncated: z.boolean(),
  /** The episode could not be played (an infrastructure failure): the metrics count it apart, never as unsolved. */
  error: z.string().optional(),
  group: z.string().optional(),
  /** The env replaced a wrong upstream gold (`gold` is then the corrected one): what and why. */
  erratum: z.unknown().optional(),
  /** The gold itself failed, so the reward cannot be trusted. */
  goldCorrupt: z.boolean().optional(),
  /** The scorer stopped at one of its bounds on the last scored turn that met one (reward 0 there): why. */
  scoreLimit: z.string().optional(),
  /** Tokens of all model calls of the episode (language-model agents). */
  usage: tokenUsageSchema.optional(),
  /** Cost of the episode's model calls; `null` when a model has no price. */
  costUsd: z.number().nullable().optional(),
  /** Why an episode was cut short: `max-turns`, `tokens` (per-episode token limit), `time`. */
  truncatedBy: z.enum(['max-turns', 'tokens', 'time']).optional(),
  durationMs: z.number(),
});

/** One finished episode: a line of `episodes.jsonl` without its `schemaVersion`. */
export type EpisodeRecord = Readonly<z.infer<typeof episodeRecordSchema>>;

export type TokenUsageData = z.infer<typeof tokenUsageSchema>;
export type ChatMessageData = z.infer<typeof chatMessageSchema>;
export type ModelCallRecord = z.infer<typeof modelCallRecordSchema>;
export type LlmTurn = z.infer<typeof llmTurnSchema>;

/** A turn of an `EpisodeRecord`. */
export type TurnRecordData = EpisodeRecord['turns'][number];

export const episodeRecordFormat: VersionedFormat<EpisodeRecord> = {
  what: 'episode record',
  version: EPISODE_RECORD_VERSION,
  schema: episodeRecordSchema,
};
