import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultHarness, outputAfter, within } from '../support/fault-harness.js';
import { RedisServer } from '../support/fault-redis-server.js';
import { waitFor } from '../support/waiting.js';

const ROWS = 600;
const RATE = 100;
/** Redis fills up after this many accepted sends. */
const FULL_AFTER = 150;

/**
 * Redis full mid-campaign (maxmemory reached, noeviction): the worker claims nothing it could
 * not record and sends nothing more; once memory is raised, the campaign completes with every
 * row sent exactly once, by the same worker process.
 */
describe('fault: Redis full mid-campaign', () => {
  let redis: RedisServer;
  let rig: FaultHarness;
  let admin: Redis;

  beforeAll(async () => {
    redis = await RedisServer.start();
    admin = new Redis(redis.url);
    rig = await FaultHarness.start({ label: 'fault-redis-full', rows: ROWS, sendRate: RATE, sandboxMps: 0, redisUrl: redis.url });
  });

  afterAll(async () => {
    await admin.config('SET', 'maxmemory', '0').catch(() => undefined);
    admin.disconnect();
    await rig.close({ removeKeys: false });
    await redis.cleanup();
  });

  it(`maxmemory reached after ${FULL_AFTER} of ${ROWS} rows: sending stops; raised again: every row sent once`, async () => {
    const summary = await rig.send();
    expect(summary).toMatchObject({ rows: ROWS, queued: ROWS });
    const worker = await rig.startWorker();
    await rig.waitForAccepted(FULL_AFTER, 60_000);
    const from = worker.output.length;
    // Far below what Redis holds: every write is refused from now on, reads still answered.
    await admin.config('SET', 'maxmemory', '1');
    await within(10_000, outputAfter(worker, /Redis is out of memory/, from), () => 'the worker never said Redis is full');
    // Sends already admitted finish; then nothing more leaves while Redis is full: the count
    // stands still for 3 s (at 100/s, 300 sends would have left).
    let last = { count: -1, since: Date.now() };
    const whileFull = await waitFor(
      () => {
        const count = rig.accepted().length;
        if (count !== last.count) last = { count, since: Date.now() };
        return last;
      },
      { what: 'sending stopped while Redis is full', until: (seen) => Date.now() - seen.since >= 3000, timeoutMs: 20_000, intervalMs: 200 },
    ).then((seen) => seen.count);
    expect(whileFull).toBeLessThan(ROWS);

    await admin.config('SET', 'maxmemory', '0');
    const status = await rig.waitForCompletion(summary.id, 180_000);
    expect(worker.child.exitCode, rig.describeWorkers()).toBeNull();
    const report = await rig.report(summary.id);
    const context = JSON.stringify({ status, whileFull, accepted: rig.accepted().length });
    expect(status, context).toMatchObject({ state: 'completed', total: ROWS, sent: ROWS, failed: 0, unknown: 0 });
    expect(rig.stats().duplicates, context).toBe(0);
    const byWaId = rig.acceptedByWaId();
    expect(report.filter((r) => (byWaId.get(r.phone.replace(/\D/g, ''))?.length ?? 0) !== 1)).toEqual([]);
  }, 240_000);
});
