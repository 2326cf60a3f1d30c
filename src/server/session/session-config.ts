import type { z } from 'zod';
import { IntercodeError } from '../../core/errors.js';
import type { Registry } from '../../core/registry.js';
import { knownDatasetIds } from '../../datasets/dataset-registry.js';
import type { DatasetSpec } from '../../datasets/dataset-spec.js';
import type { Compat, EnvDefinition } from '../../envs/env-definition.js';
import type { RunConfig } from '../../harness/run-config.js';
import type { SqlEngineName } from '../../sql/engine/sql-engine-name.js';
import { SessionError } from './session-error.js';
import {
  type ObservationProfile,
  type ResetParams,
  ResetParamsSchema,
  type SessionParams,
  SessionParamsSchema,
  toValidationIssues,
} from './wire-schemas.js';

/** The server's settings for every session (`intercode serve` flags); requests override some of them. */
export interface ServerEnvDefaults {
  /** Dataset of a reset that names none. */
  readonly dataset: string;
  /** Steps before an episode is truncated, unless a reset sets `max_turns`. */
  readonly maxTurns: number;
  /** Applied to sandbox datasets, unless a request sets its own. */
  readonly backend?: string;
  readonly image?: string;
  /** Applied to SQL datasets, unless a request sets its own engine; the database URL is server-side only. */
  readonly engine?: string;
  readonly dbUrl?: string;
  readonly observationProfile: ObservationProfile;
}

/** The registries sessions resolve datasets and environments in. */
export interface SessionRegistries {
  readonly datasets: Registry<DatasetSpec>;
  readonly envs: Registry<EnvDefinition>;
}

/** Reset params checked, with the keys the server does not know (listed in `info.ignored_keys`). */
export interface ParsedResetParams {
  readonly params: ResetParams;
  readonly ignoredKeys: string[];
}

/**
 * Validates reset params (an absent body is `{}`). `loc` prefixes each issue's path (`["body"]` for
 * HTTP). `db_url` is refused: the database a server uses is its operator's choice, not a client's.
 */
export function parseResetParams(input: unknown, loc: readonly string[] = []): ParsedResetParams {
  return parseParams(ResetParamsSchema, Object.keys(ResetParamsSchema.shape), input, loc);
}

/** Validates the options of `POST /intercode/sessions` (reset params minus the task choice). */
export function parseSessionParams(
  input: unknown,
  loc: readonly string[] = [],
): { params: SessionParams; ignoredKeys: string[] } {
  return parseParams(SessionParamsSchema, Object.keys(SessionParamsSchema.shape), input, loc);
}

function parseParams<T>(
  schema: z.ZodType<T>,
  known: readonly string[],
  input: unknown,
  loc: readonly string[],
): { params: T; ignoredKeys: string[] } {
  const body = input ?? {};
  if (typeof body !== 'object' || Array.isArray(body)) {
    throw new SessionError('VALIDATION_ERROR', 'the parameters must be a JSON object', {
      issues: [{ type: 'dict_type', loc: [...loc], msg: 'must be a JSON object', input: body }],
    });
  }
  if ('db_url' in body) {
    throw SessionError.validation(
      [...loc, 'db_url'],
      'db_url is set by the server operator (intercode serve --db-url), not by a client',
      (body as Record<string, unknown>).db_url,
    );
  }
  const result = schema.safeParse(body);
  if (!result.success) {
    const issues = toValidationIssues(result.error, body, loc);
    throw new SessionError(
      'VALIDATION_ERROR',
      issues.map((issue) => `${issue.loc.join('.')}: ${issue.msg}`).join('; '),
      {
        issues,
      },
    );
  }
  const ignoredKeys = Object.keys(body).filter((key) => !known.includes(key));
  return { params: result.data, ignoredKeys };
}

/**
 * The run configuration of a session's reset: the request's settings over the server's. A server
 * default applies only where it fits (its `--engine` is not forced on a bash dataset); a request's
 * setting that does not fit its dataset is refused by the run-setup checks, with the CLI's message.
 */
export function sessionRunConfig(
  params: SessionParams,
  defaults: ServerEnvDefaults,
  registries: SessionRegistries,
  loc: readonly string[] = [],
): RunConfig {
  const dataset = params.dataset ?? defaults.dataset;
  if (!registries.datasets.has(dataset)) {
    throw SessionError.validation(
      [...loc, 'dataset'],
      `unknown dataset "${dataset}" (known: ${knownDatasetIds(registries.datasets)})`,
      dataset,
    );
  }
  if (params.image?.startsWith('dir:')) {
    // A host directory as the sandbox root would hand the client any folder of the server's machine.
    throw SessionError.validation(
      [...loc, 'image'],
      `image "${params.image}" is a folder of the server's machine: only its operator can choose one (intercode serve --image)`,
      params.image,
    );
  }
  const envName = registries.datasets.get(dataset).env;
  const kind = registries.envs.has(envName) ? registries.envs.get(envName).kind : undefined;
  const fromServer = (value: string | undefined, applies: boolean) => (applies ? value : undefined);
  const engine = params.engine ?? fromServer(defaults.engine, kind === 'sql');
  const dbUrl = fromServer(defaults.dbUrl, kind === 'sql' && params.engine === undefined);
  const backend = params.backend ?? fromServer(defaults.backend, kind === 'sandbox');
  const image = params.image ?? fromServer(defaults.image, kind === 'sandbox');
  const sql = {
    ...(engine !== undefined ? { engine: engine as SqlEngineName } : {}),
    ...(dbUrl !== undefined ? { dbUrl } : {}),
    ...(params.handicap ? { handicap: true } : {}),
  };
  const sandbox = {
    ...(backend !== undefined ? { backend } : {}),
    ...(image !== undefined ? { image } : {}),
    ...(params.compat !== undefined ? { compat: params.compat as Compat } : {}),
    ...(params.deterministic !== undefined ? { deterministic: params.deterministic } : {}),
  };
  return {
    dataset,
    ...(Object.keys(sql).length > 0 ? { sql } : {}),
    ...(Object.keys(sandbox).length > 0 ? { sandbox } : {}),
  };
}

/** A stable key of a configuration: equal settings, equal key (the pool shares one run per key). */
export function runConfigKey(config: RunConfig): string {
  return JSON.stringify(config, (_key, value: unknown) =>
    value && typeof value === 'object' && !Array.isArray(value)
      ? Object.fromEntries(Object.entries(value).sort(([a], [b]) => a.localeCompare(b)))
      : value,
  );
}

/** Which task a reset asks for: `task_id`, else `index`, else `seed` mod the dataset's size, else task 0. */
export function taskChoice(params: ResetParams, taskCount: number): { taskId: string } | { index: number } {
  if (params.task_id !== undefined) return { taskId: params.task_id };
  if (params.index !== undefined) return { index: params.index };
  if (params.seed !== undefined && taskCount > 0) return { index: params.seed % taskCount };
  return { index: 0 };
}

/**
 * A setup error of a request (a setting that does not apply, an unknown engine or image, a task that
 * does not exist) as a validation error; anything else is passed through.
 */
export function asSetupValidation(error: unknown, loc: readonly string[] = []): unknown {
  if (!IntercodeError.isInstance(error)) return error;
  const field: Partial<Record<string, string>> = {
    USAGE: '',
    DATASET_UNKNOWN: 'dataset',
    DATASET_INVALID: 'dataset',
    SANDBOX_INVALID_SPEC: 'image',
    REGISTRY_UNKNOWN: 'backend',
    ENV_TASK_NOT_FOUND: 'task_id',
  };
  const key = field[error.code];
  if (key === undefined) return error;
  return SessionError.validation(key === '' ? [...loc] : [...loc, key], error.message, undefined);
}
