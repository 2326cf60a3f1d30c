import type { Redis } from 'ioredis';
import type { RunConfig } from '../harness/run-config.js';
import type { QueueKeys } from './queue-keys.js';

/** A recorded trajectory file sent with the run (`--agent replay`): workers have no copy of it. */
export interface InlineFile {
  readonly name: string;
  readonly text: string;
}

/**
 * The agent of a distributed run, as plain data. API keys are never part of it: each worker reads
 * its own environment (`--api-key-env` names the variable).
 */
export type AgentSpec =
  | { readonly kind: 'gold' }
  | { readonly kind: 'replay'; readonly trajectories: readonly InlineFile[] }
  | { readonly kind: 'llm'; readonly flags: Readonly<Record<string, unknown>> };

/** What every worker needs to play a run's episodes (`<prefix>:run:<runId>` in Redis). */
export interface RunMeta {
  readonly runId: string;
  /** The project version of the gathering `run`: workers of another version refuse. */
  readonly version: string;
  readonly config: RunConfig;
  readonly agent: AgentSpec;
  readonly maxTurns: number;
  readonly scoreEveryTurn: boolean;
  readonly samples: number;
  readonly dataset: string;
  /** {@link datasetChecksum} of the dataset as the gathering `run` loaded it. */
  readonly datasetChecksum: string;
}

/** Writes (or rewrites, after Redis lost its data) the run's meta. */
export async function writeRunMeta(redis: Redis, keys: QueueKeys, meta: RunMeta): Promise<void> {
  await redis.set(keys.run(meta.runId), JSON.stringify(meta));
}

/** The run's meta, or undefined when Redis does not hold it (yet, or any more). */
export async function readRunMeta(
  redis: Redis,
  keys: QueueKeys,
  runId: string,
): Promise<RunMeta | undefined> {
  const text = await redis.get(keys.run(runId));
  return text === null ? undefined : (JSON.parse(text) as RunMeta);
}
