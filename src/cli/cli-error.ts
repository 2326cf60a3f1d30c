import { IntercodeError } from '../core/errors.js';
import { EXIT } from './exit-codes.js';

const UNAVAILABLE = new Set([
  'SANDBOX_UNAVAILABLE',
  'SANDBOX_START_FAILED',
  'SANDBOX_HELPER_FAILED',
  'SQL_ENGINE_UNAVAILABLE',
  'SQL_ENGINE_FAILED',
  // A model endpoint that cannot be reached is this machine's (or network's) problem, not the input's.
  'MODEL_UNREACHABLE',
  // The Redis of `run --redis` does not answer.
  'QUEUE_UNREACHABLE',
  // The viewer's page was not built (a clone without `npm run build`).
  'VIEWER_ASSETS_MISSING',
]);

/** Turns any error into one line on stderr and the matching exit code; stack traces only with INTERCODE_DEBUG. */
export function reportError(error: unknown): number {
  if (process.env.INTERCODE_DEBUG) process.stderr.write(`${(error as Error)?.stack ?? String(error)}\n`);
  if (IntercodeError.isInstance(error)) {
    process.stderr.write(`intercode: ${error.message}\n`);
    return UNAVAILABLE.has(error.code) ? EXIT.unavailable : EXIT.usage;
  }
  const message = error instanceof Error ? error.message : String(error);
  process.stderr.write(
    `intercode: internal error: ${message.split('\n')[0]} (set INTERCODE_DEBUG=1 for details)\n`,
  );
  return EXIT.usage;
}
