import { z } from 'zod';
import { tokenUsageSchema } from '../../core/run-files/episode-record-schema.js';
import type { VersionedFormat } from '../../core/run-files/versioned-format.js';
import { RUN_SUMMARY_VERSION } from './run-summary-version.js';

/** What was run: the first fields of `summary.json`. */
export const runDescriptionSchema = z.object({
  dataset: z.string(),
  env: z.string(),
  agent: z.string(),
  /** `provider:model` of a language-model agent (`replay:<file>` for a replayed model). */
  model: z.string().optional(),
  /** The prompting strategy of a language-model agent (`try-again`, `react`, …). */
  strategy: z.string().optional(),
  /** The sandbox backend, for environments that run in sandboxes (summaries before 0.2 name one for SQL too). */
  backend: z.string().optional(),
  /** The sandbox image (`host`, `debian:bash`, …); summaries before 2026-12-04 do not name it. */
  image: z.string().optional(),
  /** The SQL engine, for the SQL environment. */
  engine: z.string().optional(),
  /** Turns per episode (`--max-turns`); version 2. */
  maxTurns: z.int().min(1).optional(),
  /** The SQL schema hint was given (`--handicap`); version 2. */
  handicap: z.boolean().optional(),
  /** `fixed` or `upstream` (`--compat`), for the environments that have both; version 2. */
  compat: z.string().optional(),
  /** Deterministic mode (`--deterministic`, default on for built-in datasets); sandbox environments. */
  deterministic: z.boolean().optional(),
  /** In deterministic mode: whether the clock was pinned (the image has libfaketime). */
  clockPinned: z.boolean().optional(),
});

/**
 * Success, reward, turns and error share of a set of episodes: the paper's figures. Episodes that
 * could not be played (an infrastructure `error`) are not in them: they are counted apart.
 */
export const metricsSchema = z.object({
  /** Episodes played to a score (episodes with an infrastructure error are not counted). */
  n: z.int().min(0),
  solved: z.int().min(0),
  /** solved / n: the share of episodes with maxReward == 1. */
  successRate: z.number(),
  meanReward: z.number(),
  meanTurns: z.number(),
  /** Mean over episodes of the share of inadmissible actions (the paper's Error %). */
  errorRate: z.number(),
});

/** The first-turn and cost figures a summary of version 2 adds to the metrics. */
export const metricsV2Schema = z.object({
  /** Episodes whose first turn scored 1. */
  firstTurnSolved: z.int().min(0),
  /** firstTurnSolved / n (the paper's "single turn" figure read from a multi-turn run). */
  firstTurnSuccessRate: z.number(),
  /** Tokens of every model call of the episodes (failed ones included: they were spent). */
  usage: tokenUsageSchema,
  /** Cost in US dollars; `null` when a model call had no price. */
  costUsd: z.number().nullable(),
});

/** The metrics `summary.json` keeps per group. */
export const groupSummarySchema = metricsSchema.pick({ n: true, successRate: true, meanReward: true });

/** A task a run left out, and why (it needs the internet, its files are missing). */
export const skippedTaskSchema = z.object({ taskId: z.string(), reason: z.string() });

/** `summary.json` of a run directory (DESIGN §8): the format's single source of truth. */
export const runSummarySchema = z.object({
  schemaVersion: z.union([z.literal(1), z.literal(RUN_SUMMARY_VERSION)]),
  ...runDescriptionSchema.shape,
  ...metricsSchema.shape,
  ...metricsV2Schema.partial().shape,
  byGroup: z.record(z.string(), groupSummarySchema.readonly()).readonly(),
  durationMs: z.number(),
  /** Episodes that failed to play (infrastructure errors): not in `n`, played again by `--resume`. */
  episodeErrors: z.int().min(0),
  /** False when the run was interrupted before every selected task was played. */
  complete: z.boolean(),
  /** Why the run stopped before its end on its own (the cost cap of `--max-cost`, failures in a row). */
  stopReason: z.string().optional(),
  /** Selected tasks not played because the environment cannot run them here (not counted in `n`). */
  skipped: z.array(skippedTaskSchema.readonly()).readonly().optional(),
});

export type RunDescription = Readonly<z.infer<typeof runDescriptionSchema>>;
/** The metrics of a set of episodes, as `computeMetrics` gives them. */
export type Metrics = Readonly<z.infer<typeof metricsSchema> & z.infer<typeof metricsV2Schema>> & {
  /** Episodes with an infrastructure error (not in `n`). */
  readonly episodeErrors: number;
};
export type SkippedTask = Readonly<z.infer<typeof skippedTaskSchema>>;
export type RunSummary = Readonly<z.infer<typeof runSummarySchema>>;

export const runSummaryFormat: VersionedFormat<RunSummary> = {
  what: 'run summary',
  version: RUN_SUMMARY_VERSION,
  schema: runSummarySchema,
};
