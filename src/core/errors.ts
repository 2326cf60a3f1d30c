/**
 * Stable, machine-readable error codes. A code never changes meaning once released;
 * new failure kinds get new codes.
 */
export type ErrorCode =
  | 'ENV_RESET_NEEDED'
  | 'ENV_CLOSED'
  | 'ENV_INVALID_ACTION'
  | 'ENV_TASK_NOT_FOUND'
  | 'ENV_FORK_UNSUPPORTED'
  | 'SANDBOX_UNAVAILABLE'
  | 'SANDBOX_START_FAILED'
  | 'SANDBOX_CLOSED'
  | 'SANDBOX_HELPER_FAILED'
  | 'SANDBOX_INVALID_SPEC'
  | 'SANDBOX_IO'
  | 'SANDBOX_SCORER_LIMIT'
  | 'REGISTRY_UNKNOWN'
  | 'REGISTRY_DUPLICATE'
  | 'DATASET_UNKNOWN'
  | 'DATASET_INVALID'
  | 'DATASET_DOWNLOAD'
  | 'DATASET_UNAVAILABLE'
  | 'SQL_ENGINE_UNAVAILABLE'
  | 'SQL_ENGINE_FAILED'
  | 'SQL_DATABASE_UNKNOWN'
  | 'SQL_SESSION_CLOSED'
  | 'SQL_ACCOUNT_PRIVILEGES'
  | 'MODEL_UNKNOWN_PROVIDER'
  | 'MODEL_NO_API_KEY'
  | 'MODEL_UNREACHABLE'
  | 'MODEL_REJECTED'
  | 'MODEL_FAILED'
  | 'MODEL_BAD_RESPONSE'
  | 'QUEUE_UNREACHABLE'
  | 'VIEWER_ASSETS_MISSING'
  | 'USAGE';

const marker = Symbol.for('intercode.error');

/** Base class of every error intercode throws on purpose. `code` is stable; `message` is one line. */
export class IntercodeError extends Error {
  readonly [marker] = true;
  readonly code: ErrorCode;

  constructor(code: ErrorCode, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = new.target.name;
    this.code = code;
  }

  /** True for any intercode error, also across duplicated copies of the package. */
  static isInstance(value: unknown): value is IntercodeError {
    return typeof value === 'object' && value !== null && marker in value;
  }
}

/** Misuse of an environment: step before reset, step after close, an action the env cannot take. */
export class EnvError extends IntercodeError {}

/** The sandbox layer could not do its job: missing tools, a failed start, a dead helper. */
export class SandboxError extends IntercodeError {}

/** An unknown or duplicate id in a registry. */
export class RegistryError extends IntercodeError {}

/** A dataset that does not exist, does not load, or does not verify. */
export class DatasetError extends IntercodeError {}

/**
 * A language model could not answer: an unknown provider or a missing key (before any episode), an
 * endpoint that cannot be reached, a request it rejects (4xx but 408/429), or transient failures
 * that outlasted the retry policy. An episode that ends on one is an infrastructure failure
 * (recorded with `error`, played again by `--resume`), never a model failure.
 */
export class ModelError extends IntercodeError {}

/** The Redis of a distributed run cannot be reached. */
export class QueueError extends IntercodeError {}

/** The web viewer cannot serve its page (its built files are missing). */
export class ViewerError extends IntercodeError {}

/** A user mistake on the command line or in a configuration value. */
export class UsageError extends IntercodeError {
  constructor(message: string, options?: { cause?: unknown }) {
    super('USAGE', message, options);
  }
}
