import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { numberScope, sharedScope } from '../../src/redis/key-scope.js';
import { FaultHarness } from '../support/fault-harness.js';
import { PHONE_NUMBER_ID } from '../support/pipeline.js';
import { RedisClusterUnderTest } from '../support/redis-cluster.js';
import { freshPrefix } from '../support/redis.js';

/**
 * The master holding a number's keys is SIGKILLed mid-campaign on a cluster with a
 * replica per master. Its replica takes over (cluster-node-timeout 1 s); the workers' commands
 * refused meanwhile are retried; sending resumes within 5 s and no row is lost or sent twice.
 */
const ROWS = 2000;
const RATE = 200;
const RESUME_WITHIN_MS = 5000;

/**
 * A fresh prefix whose shared keys (the webhook inbox among them) are on the number's master, so
 * the kill takes webhooks the service has answered 200 for with it unless they reached a replica.
 */
async function prefixBesideTheNumber(cluster: RedisClusterUnderTest): Promise<string> {
  for (;;) {
    const prefix = freshPrefix('failover');
    if ((await cluster.masterOf(sharedScope(prefix))) === (await cluster.masterOf(numberScope(prefix, PHONE_NUMBER_ID)))) return prefix;
  }
}

describe('Redis Cluster failover mid-campaign', () => {
  let cluster: RedisClusterUnderTest;
  let rig: FaultHarness;

  beforeAll(async () => {
    cluster = await RedisClusterUnderTest.start({ masters: 3, replicas: 1 });
    rig = await FaultHarness.start({
      label: 'failover',
      prefix: await prefixBesideTheNumber(cluster),
      rows: ROWS,
      sendRate: RATE,
      sandboxMps: 0,
      cluster,
      webhooks: true,
      workerEnv: { CONFIRM_WINDOW_SECONDS: '5', REDIS_WAIT_REPLICAS: '1' },
    });
  }, 60_000);

  afterAll(async () => {
    await rig?.close();
    await cluster?.stop();
  });

  it('the number’s master is killed: sending resumes within 5 s, every row sent exactly once', async () => {
    const summary = await rig.send();
    await rig.startWorker();
    await rig.startWorker();
    await rig.waitForAccepted(ROWS / 5, 60_000);
    const master = await cluster.masterOf(numberScope(rig.prefix, PHONE_NUMBER_ID));
    // Every master has its replica: claims reached it (REDIS_WAIT_REPLICAS=1) without a warning.
    const behind = /fewer replicas than asked/;
    expect(rig.workers.filter((w) => behind.test(w.output))).toStrictEqual([]);
    const killedAt = Date.now();
    await cluster.kill(master);
    expect(rig.accepted().length).toBeLessThan(ROWS * 0.6);

    const status = await rig.waitForCompletion(summary.id, 180_000);
    expect(await cluster.masterOf(numberScope(rig.prefix, PHONE_NUMBER_ID))).not.toBe(master);
    expect(status).toMatchObject({ state: 'completed', total: ROWS, sent: ROWS });
    // The promoted replica has no replica of its own: the workers said so, and did not stall on WAIT.
    expect(rig.workers.some((w) => behind.test(w.output))).toBe(true);

    // Rows in flight at the kill are in doubt. Those that never reached the API are sent again
    // once CONFIRM_WINDOW_SECONDS pass with no status webhook: a designed wait at the
    // campaign's end, not a pause in sending, so their arrivals are left out (more than one attempt).
    const report = await rig.report(summary.id);
    const resent = new Set(report.filter((r) => r.attempts > 1).map((r) => r.phone.replace(/\D/g, '')));
    const times = rig
      .accepted()
      .filter((m) => !resent.has(m.waId))
      .map((m) => m.receivedAt)
      .sort((a, b) => a - b);
    const after = times.filter((t) => t >= killedAt - 1000);
    let longestGap = 0;
    for (let i = 1; i < after.length; i++) longestGap = Math.max(longestGap, (after[i] ?? 0) - (after[i - 1] ?? 0));
    rig.note('failover', { longestGap, accepted: times.length, resent: resent.size });
    expect(longestGap, 'longest pause in sending around the failover (ms)').toBeLessThanOrEqual(RESUME_WITHIN_MS);
    expect(rig.acceptedByWaId().size).toBe(ROWS);
    // Each recipient messaged twice: its row, and when each copy arrived (ms after the kill).
    const twice = [...rig.acceptedByWaId()]
      .filter(([, copies]) => copies.length > 1)
      .map(([waId, copies]) => {
        const row = report.find((r) => r.phone.replace(/\D/g, '') === waId);
        const detail = row?.errorDetail ? `: ${row.errorDetail}` : '';
        const arrivals = copies.map((c) => c.receivedAt - killedAt).join(', ');
        return `row ${row?.row} (${row?.status}, ${row?.attempts} attempts${detail}) at ${arrivals}`;
      });
    expect(
      twice,
      `recipients messaged twice; worker output:\n${rig.workers.map((w) => w.output.slice(-4000)).join('\n---\n')}`,
    ).toStrictEqual([]);
  }, 300_000);
});
