import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { FEED_ROWS_PER_CALL, SendFeeder } from '../../src/campaigns/feed/send-feeder.js';
import type { SendJob, SendJobQueue } from '../../src/campaigns/send-job.js';
import { silentLogger } from '../../src/logging/logger.js';
import { sendQueueName, sendQueuePrefix } from '../../src/queue/queue-names.js';
import { BullSendQueue } from '../../src/queue/send-queue.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * A paced number's feeder tops a window bigger than one call of the feed script in several calls (Redis
 * runs nothing else during a script, so no call pops more than FEED_ROWS_PER_CALL), and all of
 * them make one feed: the window is full and BullMQ holds every job fed. The window opens a
 * second of sending a feed, so a starting worker's first jobs are not queued behind its whole window.
 * The ledger records a feed's rows as fed before BullMQ gets their jobs: an enqueue that fails
 * (in a failover ioredis drops a MULTI it was writing) is made again at the next feed.
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

  /** The jobs BullMQ holds waiting on the number's queue. */
  async function waitingJobs(): Promise<number> {
    const bull = new Queue(sendQueueName(LEDGER_TEST_NUMBER), { connection: redis, prefix: sendQueuePrefix(prefix, LEDGER_TEST_NUMBER) });
    try {
      return await bull.getWaitingCount();
    } finally {
      await bull.close();
    }
  }

  /** A feeder at 1,000/s with a window of its own. */
  function windowedFeeder(ledger: RedisLedger, windowSize: number): SendFeeder {
    return new SendFeeder({
      ledger,
      queue,
      phoneNumberId: LEDGER_TEST_NUMBER,
      // A second of sending is more than the window: the first feed may fill all of it.
      messagesPerSecond: 1000,
      logger: silentLogger(),
      windowSize,
      // One job a row: BullMQ's count is then the rows'.
      groupSize: 1,
    });
  }

  afterEach(async () => {
    await queue.close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('fills a window of 2.5 calls in one feed, and feeds nothing more until a quarter of it is free', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, 'big', 1000);
    const windowSize = Math.floor(2.5 * FEED_ROWS_PER_CALL);
    const feeder = windowedFeeder(ledger, windowSize);

    expect(await feeder.feedOnce()).toBe(windowSize);
    expect(await ledger.windowSize(LEDGER_TEST_NUMBER)).toBe(windowSize);
    expect(await waitingJobs()).toBe(windowSize);
    expect(await feeder.feedOnce()).toBe(0);
  });

  it('feeds nothing once stopped: a job done while the worker closes starts no feed', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, 'closing', 100);
    const feeder = windowedFeeder(ledger, 40);
    await feeder.stop();
    // A whole window's rows done: a running feeder would top the window up at once.
    feeder.jobDone(40);
    await feeder.nudge();

    expect(await ledger.windowSize(LEDGER_TEST_NUMBER)).toBe(0);
    expect(await waitingJobs()).toBe(0);
  });

  it('opens the window a second of sending a feed: the rate, then twice it, up to five seconds', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, 'warming', 3000);
    const rate = 400;
    const feeder = new SendFeeder({ ledger, queue, phoneNumberId: LEDGER_TEST_NUMBER, messagesPerSecond: rate, logger: silentLogger() });
    expect(feeder.windowSize).toBe(5 * rate);

    const fedPerFeed: number[] = [];
    for (let feed = 0; feed < 6; feed++) fedPerFeed.push(await feeder.feedOnce());

    expect(fedPerFeed).toEqual([rate, rate, rate, rate, rate, 0]);
    expect(await ledger.windowSize(LEDGER_TEST_NUMBER)).toBe(5 * rate);
  });

  it('opens the window a second a feed again after its number was idle: a campaign that comes later starts as the first did', async () => {
    const ledger = new RedisLedger(redis, prefix);
    const rate = 400;
    const feeder = new SendFeeder({ ledger, queue, phoneNumberId: LEDGER_TEST_NUMBER, messagesPerSecond: rate, logger: silentLogger() });
    // The worker has run for a while with nothing to send.
    for (let feed = 0; feed < 6; feed++) expect(await feeder.feedOnce()).toBe(0);

    await ingestQueuedCampaign(ledger, 'later', 3000);
    const fedPerFeed: number[] = [];
    for (let feed = 0; feed < 3; feed++) fedPerFeed.push(await feeder.feedOnce());

    expect(fedPerFeed).toEqual([rate, rate, rate]);
  });

  it('fills the whole window at once for an unpaced number (SEND_RATE=0)', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, 'unpaced', 3000);
    const feeder = new SendFeeder({ ledger, queue, phoneNumberId: LEDGER_TEST_NUMBER, messagesPerSecond: 0, logger: silentLogger() });

    expect(await feeder.feedOnce()).toBe(feeder.windowSize);
  });

  it('enqueues the jobs of a failed enqueue again at the next feed, not 30 s later when the ledger hands them out', async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, 'failover', 300);
    // BullMQ's queue, with its first write lost as a failover loses it.
    let failures = 1;
    const failingOnce: SendJobQueue = {
      enqueue: async (jobs: readonly SendJob[]) => {
        if (failures-- > 0) throw new Error('Command aborted due to connection close');
        await queue.enqueue(jobs);
      },
    };
    const windowSize = 200;
    const feeder = new SendFeeder({
      ledger,
      queue: failingOnce,
      phoneNumberId: LEDGER_TEST_NUMBER,
      messagesPerSecond: 0,
      logger: silentLogger(),
      windowSize,
      groupSize: 1,
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
