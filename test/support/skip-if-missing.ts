import { describe, it } from 'vitest';

/**
 * Set by `npm run test:all` (scripts/test-all.sh), which installs every component the suite needs: a
 * test that cannot run for a missing component then fails, naming it, instead of being skipped.
 */
export const REQUIRE_ALL = 'INTERCODE_REQUIRE_ALL';

/** The older switch of the same rule for the docker tests alone (still honoured by them). */
export const REQUIRE_DOCKER = 'INTERCODE_REQUIRE_DOCKER';

/** Whether a missing component fails the test (`component` 'docker' also listens to REQUIRE_DOCKER). */
export function missingFails(component?: 'docker'): boolean {
  return Boolean(process.env[REQUIRE_ALL] || (component === 'docker' && process.env[REQUIRE_DOCKER]));
}

function failure(missing: string): Error {
  return new Error(`${missing} (${REQUIRE_ALL} is set: every component must be there, nothing is skipped)`);
}

/** Vitest's `skip` of the running test (`context.skip`). */
type Skip = (note?: string) => never;

/**
 * Skips the running test when `missing` (why it cannot run here) is set, saying why; under
 * INTERCODE_REQUIRE_ALL fails it instead. Does nothing when `missing` is null or undefined.
 */
export function skipIfMissing(skip: Skip, missing: string | null | undefined, component?: 'docker'): void {
  if (!missing) return;
  if (missingFails(component)) throw failure(missing);
  skip(missing);
}

/**
 * The stand-in for a suite that cannot run here: one skipped test whose name says why, or, under
 * INTERCODE_REQUIRE_ALL, one failing test.
 */
export function describeMissing(title: string, missing: string, component?: 'docker'): void {
  describe(title, () => {
    if (missingFails(component)) {
      it('has every component it needs', () => {
        throw failure(missing);
      });
    } else {
      it.skip(`skipped: ${missing}`, () => {});
    }
  });
}
