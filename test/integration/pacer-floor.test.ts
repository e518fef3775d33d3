import { afterAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { DEFAULT_SEND_CONCURRENCY, sendConcurrencyOf } from '../../src/config/config.js';
import { RedisSendPacer } from '../../src/redis/pacer/redis-send-pacer.js';
import { admissions, busiestWindow, simulateSenders } from '../support/pacer-audit.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * The pacer's floor, checked where it decides and on a simulated clock: workers' sends (each
 * worker as many at once as its concurrency for the rate) reserve slots and ask the ceiling on
 * the real Lua scripts, but each call is told the time instead of reading Redis's TIME, so a
 * minute of sending runs in a second or two and no machine's load can move the figures. Rows
 * always wait, so every slot the rate allows should be granted: the admission record must
 * show at least 99% of the rate after the first second, and never more than the rate in any
 * sliding second. A number is shared by several worker processes (each its own pacer client)
 * and by several campaigns (a worker's sends take their rows in turn, each campaign's API
 * answer taking its own time).
 */
describe('RedisSendPacer: the rate asked for, not less (simulated time)', () => {
  const redis: Redis = testRedis();
  const prefix = freshPrefix('pacer-floor');
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  /** `answersMs`: the API's answer time for each campaign's rows (one entry: one campaign). */
  const cases: { rate: number; workers: number; answersMs: number[]; seconds: number }[] = [
    { rate: 1, workers: 1, answersMs: [5], seconds: 60 },
    { rate: 4, workers: 1, answersMs: [5], seconds: 60 },
    { rate: 10, workers: 1, answersMs: [300], seconds: 60 },
    { rate: 20, workers: 1, answersMs: [5], seconds: 60 },
    { rate: 80, workers: 1, answersMs: [300], seconds: 60 },
    { rate: 250, workers: 1, answersMs: [5], seconds: 60 },
    { rate: 1000, workers: 1, answersMs: [300], seconds: 15 },
    // Several workers on the number.
    { rate: 4, workers: 3, answersMs: [300], seconds: 60 },
    { rate: 80, workers: 2, answersMs: [5], seconds: 60 },
    { rate: 1000, workers: 2, answersMs: [5], seconds: 15 },
    // Several campaigns sharing the number, and both at once.
    { rate: 10, workers: 1, answersMs: [5, 300], seconds: 60 },
    { rate: 250, workers: 1, answersMs: [300, 5, 5], seconds: 60 },
    { rate: 1000, workers: 1, answersMs: [5, 300], seconds: 15 },
    { rate: 20, workers: 3, answersMs: [300, 5], seconds: 60 },
  ];

  it.each(cases)(
    'grants ≥ 99% of $rate/s, never above it: $workers worker(s), campaigns answered in $answersMs ms',
    async ({ rate, workers, answersMs, seconds }) => {
      const phoneNumberId = `${rate}-${workers}-${answersMs.join('-')}`;
      const auditKey = `${prefix}:audit:${phoneNumberId}`;
      const concurrency = sendConcurrencyOf({ rate, rates: new Map(), concurrency: undefined, attempts: 1, backoffMs: 0 }, phoneNumberId);
      const start = 1_000_000_000_000; // µs: any fixed instant
      const end = start + (seconds + 1) * 1_000_000;
      let now = start;
      // One pacer client per worker process, as each `campaign worker` makes its own.
      const pacers = Array.from(
        { length: workers },
        () => new RedisSendPacer(redis, { prefix, phoneNumberId, messagesPerSecond: rate, auditKey, clock: () => now }),
      );
      const sent = await simulateSenders({
        workers: pacers.map((pacer) => ({ pacer, concurrency })),
        answersMicros: answersMs.map((ms) => ms * 1000),
        start,
        end,
        setNow: (t) => (now = t),
      });

      const stamps = await admissions(redis, auditKey);
      const afterFirstSecond = stamps.filter((ms) => ms >= start / 1000 + 1000 && ms < end / 1000);
      expect(afterFirstSecond.length).toBeGreaterThanOrEqual(Math.floor(0.99 * rate * seconds));
      expect(busiestWindow(stamps)).toBeLessThanOrEqual(rate);
      expect(concurrency).toBeGreaterThanOrEqual(DEFAULT_SEND_CONCURRENCY);
      // Every worker and every campaign took part: the shares are real, not one sender's alone.
      for (const count of [...sent.byWorker, ...sent.byCampaign]) expect(count).toBeGreaterThan(0);
    },
  );
});
