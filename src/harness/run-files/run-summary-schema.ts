import { z } from 'zod';
import type { VersionedFormat } from '../../core/run-files/versioned-format.js';

/**
 * The `schemaVersion` of the `summary.json` this build writes. Summaries written before the field
 * existed have none and are version 1 by definition.
 */
export const RUN_SUMMARY_VERSION = 1;

/** What was run: the first fields of `summary.json`. */
export const runDescriptionSchema = z.object({
  dataset: z.string(),
  env: z.string(),
  agent: z.string(),
  model: z.string().optional(),
  strategy: z.string().optional(),
  /** The sandbox backend, for environments that run in sandboxes (summaries before 0.2 name one for SQL too). */
  backend: z.string().optional(),
  /** The SQL engine, for the SQL environment. */
  engine: z.string().optional(),
});

/** Success, reward, turns and error share of a set of episodes. */
export const metricsSchema = z.object({
  n: z.int().min(0),
  solved: z.int().min(0),
  successRate: z.number(),
  meanReward: z.number(),
  meanTurns: z.number(),
  /** Mean over episodes of the share of inadmissible actions (the paper's Error %). */
  errorRate: z.number(),
});

/** The metrics `summary.json` keeps per group. */
export const groupSummarySchema = metricsSchema.pick({ n: true, successRate: true, meanReward: true });

/** A task a run left out, and why (it needs the internet, its files are missing). */
export const skippedTaskSchema = z.object({ taskId: z.string(), reason: z.string() });

/** `summary.json` of a run directory (DESIGN §8): the format's single source of truth. */
export const runSummarySchema = z.object({
  schemaVersion: z.literal(RUN_SUMMARY_VERSION),
  ...runDescriptionSchema.shape,
  ...metricsSchema.shape,
  byGroup: z.record(z.string(), groupSummarySchema.readonly()).readonly(),
  durationMs: z.number(),
  /** Episodes that failed to play (infrastructure errors). */
  episodeErrors: z.int().min(0),
  /** False when the run was interrupted before every selected task was played. */
  complete: z.boolean(),
  /** Selected tasks not played because the environment cannot run them here (not counted in `n`). */
  skipped: z.array(skippedTaskSchema.readonly()).readonly().optional(),
});

export type RunDescription = Readonly<z.infer<typeof runDescriptionSchema>>;
export type Metrics = Readonly<z.infer<typeof metricsSchema>>;
export type SkippedTask = Readonly<z.infer<typeof skippedTaskSchema>>;
export type RunSummary = Readonly<z.infer<typeof runSummarySchema>>;

export const runSummaryFormat: VersionedFormat<RunSummary> = {
  what: 'run summary',
  version: RUN_SUMMARY_VERSION,
  schema: runSummarySchema,
};
