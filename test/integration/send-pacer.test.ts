import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { RedisSendPacer } from '../../src/queue/send-pacer.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

function busiestSecond(times: number[]): number {
  const sorted = [...times].sort((a, b) => a - b);
  let best = 0;
  for (let i = 0, j = 0; i < sorted.length; i++) {
    while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= 1000) j++;
    best = Math.max(best, i - j + 1);
  }
  return best;
}

describe('RedisSendPacer (shared by every worker of a phone number)', () => {
  const connections: Redis[] = [];
  const prefix = freshPrefix('pacer');
  afterEach(async () => {
    const first = connections[0];
    if (first !== undefined) await removePrefix(first, prefix);
    await Promise.all(connections.splice(0).map((c) => c.quit()));
  });

  it('two workers together never pass the rate in any second, and sends are spread out', async () => {
    const rate = 40;
    const admitted: number[] = [];
    const worker = async () => {
      const redis = testRedis();
      connections.push(redis);
      const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '1', messagesPerSecond: rate });
      // Each worker runs 10 sends at a time, as a BullMQ worker with concurrency 10 would.
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          for (let i = 0; i < 6; i++) {
            await pacer.reserveSlot();
            await pacer.admit();
            admitted.push(Date.now());
          }
        }),
      );
    };
    await Promise.all([worker(), worker()]);

    expect(admitted).toHaveLength(120);
    expect(busiestSecond(admitted)).toBeLessThanOrEqual(rate);
    const sorted = [...admitted].sort((a, b) => a - b);
    // 120 sends at 40/s cannot finish in under ~2 s (the first 40 may start at once, but don't).
    expect((sorted.at(-1) ?? 0) - (sorted[0] ?? 0)).toBeGreaterThan(2000);
    // Evenly spaced, not bursts: no 100 ms holds more than a few.
    let densest = 0;
    for (let i = 0, j = 0; i < sorted.length; i++) {
      while ((sorted[i] ?? 0) - (sorted[j] ?? 0) >= 100) j++;
      densest = Math.max(densest, i - j + 1);
    }
    expect(densest).toBeLessThanOrEqual(8);
  });
});
