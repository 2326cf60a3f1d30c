import { defineConfig } from 'vitest/config';
import { INTEGRATION_FILES } from './test/support/integration-files.js';
import { RequireAllReporter } from './test/support/require-all-reporter.js';

const TESTS = ['test/**/*.test.ts', 'src/**/*.test.ts'];

export default defineConfig({
  test: {
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Sandbox tests are CPU-heavy on 2 cores; keep file-level parallelism modest.
    maxWorkers: 2,
    // Under INTERCODE_REQUIRE_ALL (`npm run test:all`) a skipped test fails the run.
    reporters: ['default', new RequireAllReporter()],
    projects: [
      {
        extends: true,
        // No root, no daemon, no sandbox, no database server: `npm run test:unit`.
        test: { name: 'unit', include: TESTS, exclude: [...INTEGRATION_FILES], sequence: { groupOrder: 0 } },
      },
      {
        extends: true,
        // Real sandboxes, daemons and servers; runs after the unit project.
        test: { name: 'integration', include: [...INTEGRATION_FILES], sequence: { groupOrder: 1 } },
      },
    ],
  },
});
