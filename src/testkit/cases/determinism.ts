import { describe, expect } from 'vitest';
import { DETERMINISTIC_CLOCK_MS } from '../../sandbox/deterministic-clock.js';
import type { ConformanceTest } from '../conformance-fixtures.js';
import type { ConformanceContext } from '../conformance-options.js';

/** What a probe prints: the clock as programs see it, the time zone, locale, umask and host name. */
const PROBE = 'date +%s; date +%Z; echo "$LC_ALL $PYTHONHASHSEED"; umask; hostname';

/**
 * `SandboxSpec.deterministic`: the time zone, locale and hash seed pinned in the session and in
 * `exec`, the clock too where the provider says the image has libfaketime; umask and host name the
 * same in every sandbox.
 */
export function determinismCases(it: ConformanceTest, context: ConformanceContext): void {
  describe('deterministic sandboxes', () => {
    it('pins the clock (where the image can), time zone and locale in the session and in exec', async ({
      open,
    }) => {
      const provider = context.provider();
      const image = context.options.spec.image ?? provider.defaultImage;
      const library = provider.clockLibrary?.(image) ?? null;
      const sandbox = await open({ deterministic: { clockMs: DETERMINISTIC_CLOCK_MS } });
      const before = Math.floor(Date.now() / 1000);
      const clock = library === null ? undefined : `${DETERMINISTIC_CLOCK_MS / 1000}`;
      for (const result of [await sandbox.session().run(PROBE), await sandbox.exec(PROBE)]) {
        const [seconds, ...rest] = result.output.split('\n');
        if (clock !== undefined) expect(seconds).toBe(clock);
        // Without the library the clock runs, and nothing complains about a missing preload.
        else expect(Number(seconds)).toBeGreaterThanOrEqual(before);
        expect(rest.join('\n')).toBe('UTC\nC.UTF-8 0\n0022\nsandbox\n');
        expect(result.exitCode).toBe(0);
      }
      // Every program starts at the instant: a second later, `date` prints it again.
      if (clock !== undefined) {
        expect((await sandbox.session().run('sleep 1.1; date +%s')).output).toBe(`${clock}\n`);
      }
    });

    it('runs shells started by commands and their subshells, in the session and in exec, on the pinned clock', async ({
      open,
    }) => {
      const sandbox = await open({ deterministic: { clockMs: DETERMINISTIC_CLOCK_MS } });
      // Subshells that end first (each a copy of the shell that started the clock's bookkeeping),
      // then new shells: none may find its clock unusable (libfaketime's stale semaphore).
      const script = "(true); x=$(true); bash -c 'date +%Y; (true); bash -c \"date +%Y\"'; sh -c 'date +%Y'";
      const provider = context.provider();
      const pinned = provider.clockLibrary?.(context.options.spec.image ?? provider.defaultImage) ?? null;
      const year = pinned === null ? String(new Date().getUTCFullYear()) : '2023';
      for (let round = 0; round < 2; round++) {
        for (const result of [await sandbox.session().run(script), await sandbox.exec(script)]) {
          expect(result.output).toBe(`${year}\n${year}\n${year}\n`);
          expect(result.exitCode).toBe(0);
        }
      }
    });

    it('gives every sandbox umask 022 and host name sandbox, deterministic or not', async ({ sandbox }) => {
      expect((await sandbox.session().run('umask; hostname')).output).toBe('0022\nsandbox\n');
      expect((await sandbox.exec('umask; hostname')).output).toBe('0022\nsandbox\n');
    });
  });
}
