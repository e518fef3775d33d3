import type { Redis } from 'ioredis';
import { afterEach } from 'vitest';
import { RedisLedger, type LedgerOptions } from '../../src/redis/ledger/redis-ledger.js';
import { ledgerPeek, type LedgerPeek } from './ledger-peek.js';
import { freshPrefix, removePrefix, testRedis } from './redis.js';
import { TestClock } from './test-clock.js';

/** A RedisLedger on the test Redis under a fresh prefix, with a clock the test moves. */
export interface TestLedger {
  ledger: RedisLedger;
  clock: TestClock;
  peek: LedgerPeek;
  redis: Redis;
  prefix: string;
}

/**
 * Opens ledgers for the tests of the describe block it is called in, each on its own
 * connection and prefix, removed after each test. The clock is stopped at the time the
 * ledger is opened unless one is given.
 */
export function ledgersPerTest(label: string): (options?: Omit<LedgerOptions, 'clock'>, clock?: TestClock) => TestLedger {
  const opened: TestLedger[] = [];
  afterEach(async () => {
    for (const { redis, prefix } of opened.splice(0)) {
      await removePrefix(redis, prefix);
      await redis.quit();
    }
  });
  return (options = {}, clock = TestClock.stopped()) => {
    const redis = testRedis();
    const prefix = freshPrefix(label);
    const made = { ledger: new RedisLedger(redis, prefix, { ...options, clock }), clock, peek: ledgerPeek(redis, prefix), redis, prefix };
    opened.push(made);
    return made;
  };
}
