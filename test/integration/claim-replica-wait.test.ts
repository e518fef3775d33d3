import { describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { cutOffWait, suiteMasterWithReplica } from '../support/master-replica.js';
import { freshPrefix } from '../support/redis.js';

/**
 * REDIS_WAIT_REPLICAS: a claim's send leaves once the claim is on the replicas. WAIT speaks only
 * for its own connection's writes, and the client sends a WAIT cut off by a dropped connection
 * again on a new one (after a failover, to the promoted replica), where it vouches for nothing:
 * a stopped replica that never got the claim still counts. Such a claim is made again on the
 * node that holds the rows, so the row is not sent on the first answer: here the claim was
 * kept, and the second one answers in-doubt.
 */
describe("a claim whose WAIT the connection's drop cut off (a master and its replica of our own)", () => {
  const rig = suiteMasterWithReplica();

  it('is claimed again where the rows are: its first answer is in-doubt, not claimed', async () => {
    const prefix = freshPrefix('claim-replica-wait');
    const ledger = new RedisLedger(rig.redis, prefix, { waitReplicas: 1 });
    await ingestQueuedCampaign(ledger, 'cut', 1);
    const [job] = (await feedAll(ledger)).jobs;
    if (job === undefined) throw new Error('nothing fed');
    const claim = await cutOffWait(rig.replica, rig.watcher, () => ledger.claim(job, LEDGER_TEST_NUMBER));
    expect(claim.outcome).toBe('in-doubt');
  });
});
