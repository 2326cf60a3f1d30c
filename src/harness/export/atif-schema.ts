import { z } from 'zod';

/**
 * The Agent Trajectory Interchange Format, version 1.7 (Harbor's RFC 0001), as a zod schema written
 * from the RFC's field list: what `intercode export --format atif` checks each trajectory against
 * before writing it. Objects are strict, so a misspelt field fails here rather than in a consumer.
 */

/** The `schema_version` of the trajectories written. */
export const ATIF_VERSION = 'ATIF-v1.7';

const extra = z.record(z.string(), z.unknown());
const count = z.int().min(0);

/** A part of a multimodal message (v1.6). */
const contentPart = z.looseObject({ type: z.string() });

/** A tool call of an agent step. */
export const atifToolCallSchema = z.strictObject({
  tool_call_id: z.string(),
  function_name: z.string(),
  arguments: z.record(z.string(), z.unknown()),
  extra: extra.optional(),
});

/** One result of a step's observation (the environment's output). */
export const atifObservationResultSchema = z.strictObject({
  source_call_id: z.string().optional(),
  content: z.union([z.string(), z.array(contentPart)]).optional(),
  subagent_trajectory_ref: z.array(z.looseObject({})).optional(),
  extra: extra.optional(),
});

/** Tokens and cost of an agent step. */
export const atifMetricsSchema = z.strictObject({
  /** Includes cached tokens. */
  prompt_tokens: count.optional(),
  /** Includes reasoning and tool-call tokens. */
  completion_tokens: count.optional(),
  /** A part of `prompt_tokens`. */
  cached_tokens: count.optional(),
  cost_usd: z.number().min(0).optional(),
  prompt_token_ids: z.array(z.int()).optional(),
  completion_token_ids: z.array(z.int()).optional(),
  logprobs: z.array(z.number()).optional(),
  extra: extra.optional(),
});

/** A step: a system or user message, or what the agent did (one model call, or one action without a model). */
export const atifStepSchema = z
  .strictObject({
    step_id: z.int().min(1),
    /** ISO 8601. */
    timestamp: z.iso.datetime({ offset: true }).optional(),
    source: z.enum(['system', 'user', 'agent']),
    model_name: z.string().optional(),
    reasoning_effort: z.union([z.string(), z.number()]).optional(),
    message: z.union([z.string(), z.array(contentPart)]),
    reasoning_content: z.string().optional(),
    tool_calls: z.array(atifToolCallSchema).optional(),
    observation: z.strictObject({ results: z.array(atifObservationResultSchema) }).optional(),
    metrics: atifMetricsSchema.optional(),
    /** Model calls behind the step (v1.7); 0 for a deterministic, non-model step. */
    llm_call_count: count.optional(),
    /** Context carried over (not produced here): excluded from fine-tuning data. */
    is_copied_context: z.boolean().optional(),
    extra: extra.optional(),
  })
  .refine(
    (step) =>
      step.source === 'agent' ||
      (step.model_name === undefined &&
        step.reasoning_content === undefined &&
        step.tool_calls === undefined &&
        step.metrics === undefined),
    { message: 'only agent steps carry a model, reasoning, tool calls or metrics' },
  );

/** One trajectory: an episode, with its agent, steps and totals. */
export const atifTrajectorySchema = z
  .strictObject({
    schema_version: z.literal(ATIF_VERSION),
    session_id: z.string().optional(),
    trajectory_id: z.string().optional(),
    agent: z.strictObject({
      name: z.string(),
      version: z.string(),
      model_name: z.string().optional(),
      tool_definitions: z.array(z.looseObject({})).optional(),
      extra: extra.optional(),
    }),
    steps: z.array(atifStepSchema).min(1),
    notes: z.string().optional(),
    final_metrics: z
      .strictObject({
        total_prompt_tokens: count.optional(),
        total_completion_tokens: count.optional(),
        total_cached_tokens: count.optional(),
        total_cost_usd: z.number().min(0).optional(),
        total_steps: count.optional(),
        extra: extra.optional(),
      })
      .optional(),
    continued_trajectory_ref: z.string().optional(),
    subagent_trajectories: z.array(z.looseObject({})).optional(),
    extra: extra.optional(),
  })
  .refine((trajectory) => trajectory.steps.every((step, index) => step.step_id === index + 1), {
    message: 'step_id counts from 1 in order',
    path: ['steps'],
  });

/** A trajectory as the schema checks it. */
export type AtifTrajectory = z.infer<typeof atifTrajectorySchema>;
/** A step as the schema checks it. */
export type AtifStep = z.infer<typeof atifStepSchema>;
/** A tool call as the schema checks it. */
export type AtifToolCall = z.infer<typeof atifToolCallSchema>;
