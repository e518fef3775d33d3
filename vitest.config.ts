import { defineConfig } from 'vitest/config';

/**
 * Files that assert "never more than SEND_RATE in any second" as measured where the
 * requests land (the sandbox's clock). On a 2-core machine another integration file at full
 * load delays the receiving event loop by tens of milliseconds, which bunches arrivals no
 * sender can prevent; so these run last, one at a time.
 */
const RATE_CEILING_FILES = ['test/integration/fault-flaky-api.test.ts', 'test/integration/send-pacer.test.ts'];

export default defineConfig({
  test: {
    globalSetup: ['test/support/global-setup.ts'],
    testTimeout: 60_000,
    hookTimeout: 60_000,
    projects: [
      {
        extends: true,
        test: {
          name: 'suite',
          include: ['test/**/*.test.ts'],
          exclude: RATE_CEILING_FILES,
          // Integration files share one Redis (each with its own prefix) and a 2-core machine:
          // a few at a time keeps timings honest without starving the worker processes.
          maxWorkers: 2,
          sequence: { groupOrder: 0 },
        },
      },
      {
        extends: true,
        test: {
          name: 'rate-ceiling',
          include: RATE_CEILING_FILES,
          fileParallelism: false,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
