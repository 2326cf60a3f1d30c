import { z } from 'zod';

// The wire shapes of the environment server (docs/server/protocol.md). The same zod schemas validate
// requests and produce `/schema` and `/openapi.json`, so the published schemas cannot drift from what
// the server accepts.

/** An agent's action: `code` follows the action grammar (`submit`, `submit <answer>`, `skip`, else code). */
export const ActionSchema = z
  .strictObject({
    code: z.string().describe('A command, query or snippet; or `submit`, `submit <answer>`, `skip`.'),
    metadata: z.record(z.string(), z.unknown()).optional().describe('Free-form; ignored by the server.'),
  })
  .describe('An action: `code` is the only required field.');
export type WireAction = z.infer<typeof ActionSchema>;

/** Observation dict of the `default` profile: always every key. */
export const ObservationSchema = z
  .strictObject({
    output: z.string(),
    exit_code: z.int().nullable(),
    timed_out: z.boolean(),
    task_id: z.string(),
    turn: z.int().min(0).describe('Steps taken in the episode.'),
    instruction: z.string().nullable().describe("The task's instruction at reset, null on steps."),
  })
  .describe('Observation (profile `default`).');

/** Observation dict of the `coding` profile (OpenEnv's coding_env shape). */
export const CodingObservationSchema = z
  .strictObject({ stdout: z.string(), stderr: z.string(), exit_code: z.int() })
  .describe('Observation (profile `coding`).');

/** Which observation dict the server sends. */
export type ObservationProfile = 'default' | 'coding';
export const OBSERVATION_PROFILES: readonly ObservationProfile[] = ['default', 'coding'];

export type WireObservation = z.infer<typeof ObservationSchema> | z.infer<typeof CodingObservationSchema>;

/** What reset, step and state replies carry besides the observation. */
export const EnvelopeSchema = z
  .object({
    observation: z.union([ObservationSchema, CodingObservationSchema]),
    reward: z.number().nullable(),
    done: z.boolean().describe('terminated || truncated'),
    terminated: z.boolean(),
    truncated: z.boolean(),
    info: z.record(z.string(), z.unknown()),
    request_id: z.union([z.string(), z.number()]).optional(),
  })
  .describe('Reply of reset and step.');

/** One reset or step reply. */
export interface WireStep {
  observation: WireObservation;
  reward: number | null;
  done: boolean;
  terminated: boolean;
  truncated: boolean;
  info: Record<string, unknown>;
}

export const StateSchema = z
  .strictObject({
    episode_id: z.string().nullable(),
    step_count: z.int().min(0),
    dataset: z.string().nullable(),
    task_id: z.string().nullable(),
    done: z.boolean(),
    max_turns: z.int().min(1),
  })
  .describe("A session's state.");
export type WireState = z.infer<typeof StateSchema>;

/** The env options a client may set at reset or when it opens a session (as in the run configuration). */
const envOptionShape = {
  dataset: z.string().min(1).describe("Dataset id (default: the server's `--dataset`)."),
  max_turns: z.int().min(1).describe("Steps before the episode is truncated (default: the server's)."),
  engine: z.string().describe('SQL engine: sqlite, mysql, postgres (SQL datasets only).'),
  handicap: z.boolean().describe('Add the schema hint to the instruction (SQL datasets only).'),
  backend: z.string().describe('Sandbox backend: bwrap, docker (sandbox datasets only).'),
  image: z.string().describe('Sandbox image (sandbox datasets only).'),
  compat: z.string().describe('Upstream mode (bash and python only).'),
  deterministic: z
    .boolean()
    .describe(
      'Pin the clock, time zone, locale, hash seed and task file times (sandbox datasets; default on).',
    ),
} as const;

/** Body of `POST /intercode/sessions`: reset params minus the task choice. */
export const SessionParamsSchema = z.object(envOptionShape).partial().describe('Options of a new session.');
export type SessionParams = z.infer<typeof SessionParamsSchema>;

/** Reset params (WS `reset` data, HTTP `/reset` body); all optional; unknown keys are ignored. */
export const ResetParamsSchema = z
  .object({
    seed: z.int().min(0).describe('Task index = seed mod dataset size.'),
    task_id: z.string().describe('Task id; beats seed and index.'),
    index: z.int().min(0).describe('Task index.'),
    episode_id: z.string().max(255).describe('Episode id (default: a new uuid).'),
    ...envOptionShape,
  })
  .partial()
  .describe('Reset parameters (all optional; unknown keys are ignored and listed in info.ignored_keys).');
export type ResetParams = z.infer<typeof ResetParamsSchema>;

/** Body of HTTP `POST /step`. */
export const StepBodySchema = z
  .object({
    action: ActionSchema,
    timeout_s: z.number().gt(0).optional().describe('Deadline of this step, seconds (capped by the server).'),
    request_id: z.union([z.string().max(255), z.number()]).optional(),
    session_id: z.string().optional(),
  })
  .describe('Step request.');

/** One validation problem, in the shape FastAPI gives (`loc` is the path of the bad value). */
export interface ValidationIssue {
  type: string;
  loc: (string | number)[];
  msg: string;
  input: unknown;
}

const TYPE_OF_CODE: Record<string, string> = {
  invalid_type: 'type_error',
  too_small: 'too_small',
  too_big: 'too_big',
  unrecognized_keys: 'extra_forbidden',
  invalid_union: 'union_error',
  invalid_value: 'value_error',
  invalid_format: 'value_error',
};

/** zod issues → the 422 `detail` list, each `loc` prefixed with `prefix` (`["body"]` for HTTP bodies). */
export function toValidationIssues(
  error: z.ZodError,
  input: unknown,
  prefix: readonly (string | number)[] = [],
): ValidationIssue[] {
  return error.issues.flatMap((issue) => {
    const path = issue.path.map((part) => (typeof part === 'symbol' ? String(part) : part));
    if (issue.code === 'unrecognized_keys') {
      return issue.keys.map((key) => ({
        type: 'extra_forbidden',
        loc: [...prefix, ...path, key],
        msg: `unknown field "${key}"`,
        input: valueAt(input, [...path, key]),
      }));
    }
    const value = valueAt(input, path);
    const missing = issue.code === 'invalid_type' && value === undefined;
    return [
      {
        type: missing ? 'missing' : (TYPE_OF_CODE[issue.code] ?? issue.code),
        loc: [...prefix, ...path],
        msg: missing ? 'field required' : issue.message,
        // As pydantic does: a missing field's input is the object it is missing from.
        input: missing ? (valueAt(input, path.slice(0, -1)) ?? null) : value,
      },
    ];
  });
}

function valueAt(input: unknown, path: readonly (string | number)[]): unknown {
  let value = input;
  for (const part of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string | number, unknown>)[part];
  }
  return value;
}

/** The JSON Schemas of `GET /schema`. */
export function wireJsonSchemas(
  profile: ObservationProfile,
): Record<'action' | 'observation' | 'state', unknown> {
  return {
    action: z.toJSONSchema(ActionSchema),
    observation: z.toJSONSchema(profile === 'coding' ? CodingObservationSchema : ObservationSchema),
    state: z.toJSONSchema(StateSchema),
  };
}
