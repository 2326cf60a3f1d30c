import { EnvError } from '../core/errors.js';

/** Throws `ENV_INVALID_ACTION` unless `count` (of an `Env.fork`) is a whole number from 1 to `max`. */
export function checkForkCount(count: number, max: number): void {
  if (!Number.isInteger(count) || count < 1 || count > max) {
    throw new EnvError(
      'ENV_INVALID_ACTION',
      `fork count must be a whole number from 1 to ${max}, not ${count}`,
    );
  }
}
