import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    include: ['test/**/*.test.ts'],
    // Integration files share one Redis (each with its own prefix) and a 2-core machine: a
    // few at a time keeps them from starving the worker processes they start. No test
    // asserts wall-clock rates, so load from elsewhere (a second suite) changes durations,
    // not results.
    maxWorkers: 2,
  },
});
