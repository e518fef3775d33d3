import { RedisLedger } from '../../src/redis/redis-ledger.js';
import { describeLedgerContract, realClock } from '../support/ledger-contract.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * RedisLedger on a real Redis (a fresh prefix per ledger, removed after the test) against the
 * shared contract (test/support/ledger-contract.ts): the same scenarios and expectations
 * MemoryLedger meets in test/unit/memory-ledger.test.ts. Redis's ledger reads the real clock.
 */
describeLedgerContract('RedisLedger (real Redis, real clock)', (options = {}) => {
  const redis = testRedis();
  const prefix = freshPrefix('ledger-contract');
  const ledger = new RedisLedger(redis, prefix, options);
  return Promise.resolve({
    ledger,
    clock: realClock(),
    async cleanup() {
      await removePrefix(redis, prefix);
      await redis.quit();
    },
  });
});
