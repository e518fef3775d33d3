import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    // Tests wait on events, not sleeps, so these limits only catch a hang: generous enough for
    // a 2-core machine running two suites at once (every CLI process there takes seconds to start).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    include: ['test/**/*.test.ts'],
    // Integration files share one Redis (each with its own prefix) and a 2-core machine: a
    // few at a time keeps them from starving the worker processes they start. No test
    // asserts wall-clock rates, so load from elsewhere (a second suite) changes durations,
    // not results.
    maxWorkers: 2,
  },
});
