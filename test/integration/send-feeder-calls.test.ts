import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FEED_ROWS_PER_CALL, SendFeeder } from '../../src/campaigns/feed/send-feeder.js';
import { silentLogger } from '../../src/logging/logger.js';
import { sendQueueName, sendQueuePrefix } from '../../src/queue/queue-names.js';
import { BullSendQueue } from '../../src/queue/send-queue.js';
import { RedisLedger } from '../../src/redis/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * A paced number's feeder tops a window bigger than one call of the feed script in several calls (Redis
 * runs nothing else during a script, so no call pops more than FEED_ROWS_PER_CALL), and all of
 * them make one feed: the window is full and BullMQ holds every job fed.
 */
describe('SendFeeder: a big room in calls of FEED_ROWS_PER_CALL (real Redis and BullMQ)', () => {
  let redis: Redis;
  let prefix: string;
  let queue: BullSendQueue;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('feeder-calls');
    queue = new BullSendQueue({
      connection: redis,
      prefix,
      phoneNumberId: LEDGER_TEST_NUMBER,
      attempts: 1,
      backoffMs: 1,
      logger: silentLogger(),
    });
  });

  afterEach(async () => {
    await queue.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('fills a window of 2.5 calls in one feed, and feeds nothing more until a quarter of it is free', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, 'big', 1000);
    const windowSize = Math.floor(2.5 * FEED_ROWS_PER_CALL);
    const feeder = new SendFeeder({
      ledger,
      queue,
      phoneNumberId: LEDGER_TEST_NUMBER,
      messagesPerSecond: 100,
      logger: silentLogger(),
      windowSize,
    });

    expect(await feeder.feedOnce()).toBe(windowSize);
    expect(await ledger.windowSize(LEDGER_TEST_NUMBER)).toBe(windowSize);
    const bull = new Queue(sendQueueName(LEDGER_TEST_NUMBER), { connection: redis, prefix: sendQueuePrefix(prefix, LEDGER_TEST_NUMBER) });
    try {
      expect(await bull.getWaitingCount()).toBe(windowSize);
    } finally {
      await bull.close();
    }
    expect(await feeder.feedOnce()).toBe(0);
  });
});
