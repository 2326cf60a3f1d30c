import { relative } from 'node:path';
import type { Reporter, TestModule } from 'vitest/node';
import { REQUIRE_ALL } from './skip-if-missing.js';

/**
 * The name prefix of a test skipped because the platform cannot do it at all (not a component test-all
 * could install): the one kind of skip test-all accepts. Today only the docker disk quota, which
 * overlay2 on ext4 cannot enforce; the skip is still listed.
 */
export const PLATFORM_LIMIT = 'platform limit: ';

/**
 * Under INTERCODE_REQUIRE_ALL (`npm run test:all`), fails the run when any test was skipped, listing
 * each one with the note it was skipped with. It is the safety net of skipIfMissing/describeMissing,
 * which fail the test itself: it also catches a gate written another way (`it.skipIf`, `describe.runIf`,
 * a bare `context.skip()`).
 */
export class RequireAllReporter implements Reporter {
  onTestRunEnd(testModules: ReadonlyArray<TestModule>): void {
    if (!process.env[REQUIRE_ALL]) return;
    const skipped: string[] = [];
    for (const module of testModules) {
      for (const test of module.children.allTests('skipped')) {
        if (test.name.startsWith(PLATFORM_LIMIT)) {
          process.stderr.write(`skipped (${test.name})\n`);
          continue;
        }
        const result = test.result();
        const note = result.state === 'skipped' && result.note ? ` (${result.note})` : '';
        skipped.push(`  ${relative(process.cwd(), module.moduleId)} > ${test.fullName}${note}`);
      }
    }
    if (skipped.length === 0) return;
    process.stderr.write(
      `\n${REQUIRE_ALL} is set, but ${skipped.length} test(s) were skipped:\n${skipped.join('\n')}\n\n`,
    );
    process.exitCode = 1;
  }
}
