import { IntercodeError, SandboxError } from '../core/errors.js';

/** Which bound a walk met. */
export type ScorerLimit = 'time' | 'entries' | 'memory' | 'descriptors' | 'changed' | 'output' | 'crashed';

const LIMITS: readonly ScorerLimit[] = [
  'time',
  'entries',
  'memory',
  'descriptors',
  'changed',
  'output',
  'crashed',
];

/**
 * A walk over a sandbox's file system (`diff`, `digest`, `snapshot`) stopped at one of its bounds
 * (`ScorerBounds`): the sandbox holds more than the scorer walks, or its processes changed it during
 * the walk. Code `SANDBOX_SCORER_LIMIT`. The sandbox itself is fine; an environment scores such an
 * episode 0 and records the reason.
 */
export class ScorerLimitError extends SandboxError {
  readonly limit: ScorerLimit;

  constructor(limit: ScorerLimit, message: string) {
    super('SANDBOX_SCORER_LIMIT', message);
    this.limit = limit;
  }

  /** The limit named by a walker's reply, `crashed` for one it does not know. */
  static fromReply(limit: unknown, message: string): ScorerLimitError {
    const known = LIMITS.find((name) => name === limit) ?? 'crashed';
    return new ScorerLimitError(known, message);
  }
}

/** True for a `ScorerLimitError`, also across duplicated copies of the package. */
export function isScorerLimit(error: unknown): error is ScorerLimitError {
  return IntercodeError.isInstance(error) && error.code === 'SANDBOX_SCORER_LIMIT';
}
