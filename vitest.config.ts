import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts', 'src/**/*.test.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Sandbox tests are CPU-heavy on 2 cores; keep file-level parallelism modest.
    maxWorkers: 2,
  },
});
