import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultHarness, outputAfter, within } from '../support/fault-harness.js';
import { RedisServer } from '../support/fault-redis-server.js';

/**
 * Fault injection: Redis (its own `redis-server`, AOF with fsync on every write, as
 * in production) crashes and comes back mid-campaign. The worker, a child process, must
 * reconnect by itself, and the campaign must complete with every row answered: nothing lost,
 * nothing sent twice unless the ledger says it cannot know (`unknown`).
 */
const ROWS = 2000;
const RATE = 200;
/** Redis goes down after this many accepted sends. */
const CRASH_AFTER = 600;

describe('fault: Redis restarts mid-campaign', () => {
  let redis: RedisServer;
  let rig: FaultHarness;

  beforeAll(async () => {
    redis = await RedisServer.start();
    rig = await FaultHarness.start({ label: 'fault-redis', rows: ROWS, sendRate: RATE, sandboxMps: RATE, redisUrl: redis.url });
  });

  afterAll(async () => {
    // Workers first (they hold connections to this Redis), then the server and its files.
    await rig.close({ removeKeys: false });
    await redis.cleanup();
  });

  it(`SIGKILL + restart of redis-server after ${CRASH_AFTER} of ${ROWS} rows: the campaign completes, nothing lost`, async () => {
    const worker = await rig.startWorker();
    const summary = await rig.send();
    expect(summary).toMatchObject({ rows: ROWS, queued: ROWS });

    await rig.waitForAccepted(CRASH_AFTER, 90_000);
    const firstPid = redis.pid;
    const from = worker.output.length;
    await redis.stop('SIGKILL');
    const acceptedAtCrash = rig.accepted().length;
    // The worker notices (its connection logs an error) before Redis is back; if it logs
    // nothing within 3 s, Redis comes back anyway: the outage is the fault, not the log line.
    const noticed = await within(
      3000,
      outputAfter(worker, /redis connection error|ECONNREFUSED|Connection is closed/i, from),
      () => 'no error logged',
    ).then(
      () => true,
      () => false,
    );
    await redis.launch();
    expect(redis.pid).not.toBe(firstPid);
    expect(acceptedAtCrash).toBeLessThan(ROWS);

    // Rows keep flowing after the restart: the same worker process reconnected by itself.
    await rig.waitForAccepted(acceptedAtCrash + 100, 90_000);
    const status = await rig.waitForCompletion(summary.id, 180_000);
    expect(worker.child.exitCode, rig.describeWorkers()).toBeNull();
    expect(rig.workers).toHaveLength(1);

    const stats = rig.stats();
    const duplicates = stats.duplicates;
    const report = await rig.report(summary.id);
    const notSent = report.filter((r) => r.status !== 'sent');
    const context = JSON.stringify({ status, accepted: rig.accepted().length, duplicates, notSent: notSent.slice(0, 10) });
    rig.note('outcome', { status, noticed, acceptedAtCrash, accepted: rig.accepted().length, stats });

    expect(status.state, context).toBe('completed');
    expect(status.total, context).toBe(ROWS);
    expect(status.queued, context).toBe(0);
    expect(status.failed, context).toBe(0);
    expect(status.sent + status.unknown, context).toBe(ROWS);
    expect(report).toHaveLength(ROWS);
    // Every row is sent, except those the ledger itself reports unknown.
    expect(
      notSent.filter((r) => r.status !== 'unknown'),
      context,
    ).toEqual([]);
    expect(duplicates, context).toBeLessThanOrEqual(status.unknown);
    expect(duplicates, context).toBe(rig.duplicatesSeen());
    expect(rig.crossCheck(report), context).toEqual([]);
    // Every recipient the ledger calls sent was accepted exactly once.
    const byWaId = rig.acceptedByWaId();
    const sentTwice = report.filter((r) => r.status === 'sent' && (byWaId.get(r.phone.replace(/\D/g, ''))?.length ?? 0) !== 1);
    expect(sentTwice, context).toEqual([]);
  }, 300_000);
});
