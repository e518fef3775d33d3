import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['test/**/*.test.ts'],
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    // Integration files share one Redis (each with its own prefix) and a 2-core machine:
    // a few at a time keeps timings honest without starving the worker processes.
    maxWorkers: 2,
  },
});
