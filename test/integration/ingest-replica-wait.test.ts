import type { Redis } from 'ioredis';
import { describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, feedAll, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { cutOffWait, suiteMasterWithReplica } from '../support/master-replica.js';
import { freshPrefix } from '../support/redis.js';

/**
 * REDIS_WAIT_REPLICAS: `campaign send` reports rows recorded once they are on the replicas. A
 * WAIT cut off by a dropped connection is sent again on a new one (after a failover, to the
 * promoted replica), where it vouches for nothing. The chunk's mark then tells whether the node
 * reached now holds the chunk: its answer stands if so, else the chunk is recorded there again.
 */
describe("a chunk whose WAIT the connection's drop cut off (a master and its replica of our own)", () => {
  const rig = suiteMasterWithReplica();

  /** A new campaign, then 3 rows recorded with their WAIT cut off; `lose`: the node reached afterwards never got them. */
  async function recordCutOff(prefix: string, lose: boolean) {
    const ledger = new RedisLedger(rig.redis, prefix, { waitReplicas: 1 });
    await ledger.createCampaign(ledgerTestDefinition('cut'));
    const result = await cutOffWait(
      rig.replica,
      rig.watcher,
      () => ledger.recordIngested('cut', LEDGER_TEST_NUMBER, [queuedRow(1), queuedRow(2), queuedRow(3)]),
      lose ? { prefix } : undefined,
    );
    return { ledger, result };
  }

  it('the node kept the chunk: its first answer stands, and nothing is recorded twice', async () => {
    const { ledger, result } = await recordCutOff(freshPrefix('ingest-replica-kept'), false);
    expect(result.queued).toEqual([1, 2, 3]);
    expect((await ledger.status('cut'))?.counts.queued).toBe(3);
    expect((await feedAll(ledger)).jobs.map((job) => job.row)).toEqual([1, 2, 3]);
  });

  it("a campaign's index entry waits for the replica too, and is written again where the node reached never got it", async () => {
    const prefix = freshPrefix('ingest-replica-index');
    const ledger = new RedisLedger(rig.redis, prefix, { waitReplicas: 1 });
    // The entry (campaign → number) is on its own key: without its own wait there is no WAIT here to cut off.
    await cutOffWait(rig.replica, rig.watcher, () => ledger.createCampaign(ledgerTestDefinition('cut')), { prefix });
    expect((await ledger.status('cut'))?.counts.queued).toBe(0);
  });

  it('the campaign and each shared index it is found through (its number, the campaigns, the numbers) wait for the replica', async () => {
    const ledger = new RedisLedger(rig.redis, freshPrefix('ingest-replica-indexes'), { waitReplicas: 1 });
    // The first campaign of the number also copies the portfolio's opt-outs and caps to it; the second only indexes.
    await ledger.createCampaign(ledgerTestDefinition('first'));
    const before = await waitCalls(rig.watcher);
    await ledger.createCampaign(ledgerTestDefinition('second'));
    // No rows yet: the chunks' waits cover nothing here, so the campaign's hash and each of the three keys have their own.
    expect((await waitCalls(rig.watcher)) - before).toBe(4);
  });

  it('the node never got the chunk: it is recorded there again, so the rows it reported are in the campaign', async () => {
    const { ledger, result } = await recordCutOff(freshPrefix('ingest-replica-lost'), true);
    expect(result.queued).toEqual([1, 2, 3]);
    expect((await ledger.status('cut'))?.counts.queued).toBe(3);
    expect((await feedAll(ledger)).jobs.map((job) => job.row)).toEqual([1, 2, 3]);
  });
});

/** How many WAIT commands the master has run. */
async function waitCalls(redis: Redis): Promise<number> {
  const info = String(await redis.info('commandstats'));
  return Number(/^cmdstat_wait:calls=(\d+)/m.exec(info)?.[1] ?? 0);
}
