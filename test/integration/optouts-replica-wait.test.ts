import { describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER } from '../support/ledger-fixtures.js';
import { cutOffWait, suiteMasterWithReplica } from '../support/master-replica.js';
import { freshPrefix } from '../support/redis.js';

const PHONE = '+15550100123';

/**
 * REDIS_WAIT_REPLICAS: an opt-out counts as recorded once it is on the replicas, or a failover
 * could take it back and let the number send to someone who said STOP. A WAIT cut off by a
 * dropped connection is sent again on a new one (after a failover, to the promoted replica),
 * where it vouches for nothing: the opt-out is applied again there.
 */
describe("an opt-out whose WAIT the connection's drop cut off (a master and its replica of our own)", () => {
  const rig = suiteMasterWithReplica();

  it('the node never got it: it is applied there again, on the portfolio and on the number', async () => {
    const prefix = freshPrefix('optouts-replica-lost');
    const ledger = new RedisLedger(rig.redis, prefix, { waitReplicas: 1 });
    const added = await cutOffWait(rig.replica, rig.watcher, () => ledger.addOptOut(LEDGER_TEST_NUMBER, PHONE), { prefix });
    expect(added).toBe(true);
    expect([...(await ledger.optOuts(LEDGER_TEST_NUMBER)).keys()]).toEqual([PHONE]);
    expect([...(await ledger.optOutsOfPortfolio('default')).keys()]).toEqual([PHONE]);
  });

  it('the node kept it: it is there once, and reported as the change it was, though applied again', async () => {
    const prefix = freshPrefix('optouts-replica-kept');
    const ledger = new RedisLedger(rig.redis, prefix, { waitReplicas: 1 });
    // The portfolio's record alone (no number holds a copy yet): its answer is the whole answer.
    expect(await cutOffWait(rig.replica, rig.watcher, () => ledger.addPortfolioOptOut('default', PHONE))).toBe(true);
    expect([...(await ledger.optOutsOfPortfolio('default')).keys()]).toEqual([PHONE]);
  });
});
