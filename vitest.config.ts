import { randomBytes } from 'node:crypto';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { configDefaults, defineConfig } from 'vitest/config';
import { CAPTURE_PREFIX } from './test/support/capture-directory.js';
import { SuiteSequencer } from './test/support/suite-sequencer.js';

/**
 * Where this run's sandboxes capture every exchange and webhook (SANDBOX_REQUEST_LOG,
 * src/sandbox/request-log.ts): a new directory per run, created empty by the integration
 * project's setup (test/support/capture-directory.ts), which the `captured` project checks
 * against Meta's OpenAPI once the integration files are done. Vitest evaluates this file more
 * than once in its process (once per project that extends it): the first evaluation's name is
 * every project's.
 */
const RUN_CAPTURES = Symbol.for('campaign-worker.capture-directory');
const shared = globalThis as { [RUN_CAPTURES]?: string };
const captures = (shared[RUN_CAPTURES] ??= join(tmpdir(), `${CAPTURE_PREFIX}${Date.now()}-${randomBytes(4).toString('hex')}`));

/**
 * The long runs, in a tier of their own so that `npm test` takes a few minutes on 2 cores: the
 * stress test of one-shot commands (1,000 runs in `npm run test:stress`), the 100,000-row upload,
 * the failover loops on a Redis Cluster, the pacer's floor up to 1,000/s, and the tests that drain
 * whole campaigns around a kill, a restart, a pause, a shutdown, a scrape or a hook's receiver down for 30 s. The other long files
 * run beside the stress test, in about the time it takes, so this tier costs little more than it.
 */
const LONG = [
  'cli-stress',
  'api-upload-100k',
  'campaign-controls',
  'cluster-campaign',
  'cluster-failover',
  'fault-flaky-api',
  'fault-in-doubt',
  'fault-kill',
  'fault-pair-limit',
  'fault-redis-restart',
  'fault-token-expiry',
  'hooks-delivery',
  'metrics-campaign',
  'multi-number-worker',
  'pacer-floor',
  'worker-shutdown',
].map((name) => `test/integration/${name}.test.ts`);

/** What the `integration` and `long` projects share: a Redis, this run's capture directory, one module graph per worker. */
const integrationSetup = {
  globalSetup: ['test/support/global-setup.ts', 'test/support/capture-directory.ts'],
  isolate: false,
  env: { SANDBOX_REQUEST_LOG: captures },
};

/**
 * Four tiers. `unit` needs no Redis and no network (`npm run test:unit`); `integration` gets a
 * real Redis from its global setup (`npm run test:integration`); `long` is set up as
 * `integration` is and holds the long runs (`npm run test:stress`); `captured` runs after
 * whichever of those two ran and checks what their sandboxes captured. `npm test` runs all but
 * `long`.
 */
export default defineConfig({
  test: {
    // Tests wait on events, not sleeps, so these limits only catch a hang: generous enough for
    // a 2-core machine running two suites at once (every CLI process there takes seconds to start).
    testTimeout: 120_000,
    hookTimeout: 120_000,
    // Integration files share one Redis (each with its own prefix) and a 2-core machine: a
    // few at a time keeps them from starving the worker processes they start. Three, as they
    // wait on processes, servers and events more than they compute: on 2 cores, three kept the
    // machine 68% busy and ran `npm test` in 442 s, where two took about 580 s. The long tier's
    // files compute (the stress test, the drains): three took as long as two there. Projects
    // take this value from here, not from a `--maxWorkers` on the command line. Load from
    // elsewhere changes durations.
    maxWorkers: 3,
    // The two heaviest long files go where they cost the least wall time (see SuiteSequencer).
    sequence: { sequencer: SuiteSequencer },
    projects: [
      // Threads start faster than forks, and no unit test needs a process of its own. Unit tests
      // keep no state between files (fake timers are restored, nothing global is stubbed), so each
      // worker imports the modules once instead of once per file: a third of the CPU time, which
      // keeps the tier well under 30 s on a busy 2-core machine. A test that stubs something
      // global must restore it.
      { extends: true, test: { name: 'unit', include: ['test/unit/**/*.test.ts'], pool: 'threads', isolate: false } },
      // Integration files, too, share a worker process and its imported modules: each file opens and
      // closes its own connections, servers and child processes, with a prefix of its own, and spies
      // are restored. Imported afresh for every file, the app left gaps of 1–4 s between files here.
      // Every sandbox they start, in the workers or in the CLI processes they spawn (which inherit
      // the environment), captures its exchanges and webhooks for the `captured` project.
      {
        extends: true,
        test: {
          name: 'integration',
          include: ['test/integration/**/*.test.ts'],
          exclude: [...configDefaults.exclude, ...LONG],
          ...integrationSetup,
        },
      },
      // Set up as `integration` is; not in `npm test` (see LONG).
      { extends: true, test: { name: 'long', include: LONG, ...integrationSetup } },
      // After the others (a higher group order): every request of ours the sandboxes of `integration`
      // or `long` captured, and every answer and webhook they gave, against Meta's OpenAPI (test/captured).
      {
        extends: true,
        test: {
          name: 'captured',
          include: ['test/captured/**/*.test.ts'],
          sequence: { groupOrder: 1 },
          env: { SANDBOX_REQUEST_LOG: captures },
        },
      },
    ],
  },
});
