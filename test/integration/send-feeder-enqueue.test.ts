import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { SendFeeder } from '../../src/campaigns/feed/send-feeder.js';
import type { SendJob, SendJobQueue } from '../../src/campaigns/send-job.js';
import { silentLogger } from '../../src/logging/logger.js';
import { sendQueueName, sendQueuePrefix } from '../../src/queue/queue-names.js';
import { BullSendQueue } from '../../src/queue/send-queue.js';
import { RedisLedger } from '../../src/redis/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * The ledger records a feed's rows as fed before BullMQ gets their jobs. When the enqueue
 * fails (a connection closed mid-write: in a failover ioredis aborts a MULTI rather than send
 * it again), those jobs must reach BullMQ at the next feed, not fill the window unrun until
 * the ledger hands them out again 30 s later.
 */
describe('SendFeeder: jobs whose enqueue failed (real Redis and BullMQ)', () => {
  let redis: Redis;
  let prefix: string;
  let bullQueue: BullSendQueue;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('feeder-enqueue');
    bullQueue = new BullSendQueue({
      connection: redis,
      prefix,
      phoneNumberId: LEDGER_TEST_NUMBER,
      attempts: 1,
      backoffMs: 1,
      logger: silentLogger(),
    });
  });

  afterEach(async () => {
    await bullQueue.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('enqueues them again at the next feed', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, 'failover', 300);
    // BullMQ's queue, with its first write lost as a failover loses it.
    let failures = 1;
    const queue: SendJobQueue = {
      enqueue: async (jobs: readonly SendJob[]) => {
        if (failures-- > 0) throw new Error('Command aborted due to connection close');
        await bullQueue.enqueue(jobs);
      },
    };
    const windowSize = 200;
    const feeder = new SendFeeder({
      ledger,
      queue,
      phoneNumberId: LEDGER_TEST_NUMBER,
      messagesPerSecond: 0,
      logger: silentLogger(),
      windowSize,
    });

    await expect(feeder.feedOnce()).rejects.toThrow('connection close');
    // The ledger counts the lost jobs in the window: the next feed has no room for new ones,
    // but gives BullMQ the ones it lost.
    expect(await ledger.windowSize(LEDGER_TEST_NUMBER)).toBe(windowSize);
    expect(await feeder.feedOnce()).toBe(0);

    const bull = new Queue(sendQueueName(LEDGER_TEST_NUMBER), { connection: redis, prefix: sendQueuePrefix(prefix, LEDGER_TEST_NUMBER) });
    try {
      const waiting = await bull.getWaiting(0, -1);
      expect(waiting.map((job) => (job.data as SendJob).row).sort((a, b) => a - b)).toEqual(
        Array.from({ length: windowSize }, (_, i) => i + 1),
      );
    } finally {
      await bull.close();
    }
  });
});
