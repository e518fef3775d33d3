import { afterAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { DEFAULT_SEND_CONCURRENCY, sendConcurrencyOf } from '../../src/config/config.js';
import { RedisSendPacer } from '../../src/redis/redis-send-pacer.js';
import { admissions, busiestWindow } from '../support/pacer-audit.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * The pacer's floor, checked where it decides and on a simulated clock: a worker's sends
 * (as many at once as its concurrency for the rate) reserve slots and ask the ceiling on the
 * real Lua scripts, but each call is told the time instead of reading Redis's TIME, so a
 * minute of sending runs in a second or two and no machine's load can move the figures. Rows
 * always wait, so every slot the rate allows should be granted: the admission record must
 * show at least 97% of the rate after the first second, and never more than the rate in any
 * sliding second.
 */
describe('RedisSendPacer: the rate asked for, not less (simulated time)', () => {
  const redis: Redis = testRedis();
  const prefix = freshPrefix('pacer-floor');
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  const cases: { rate: number; latencyMs: number; seconds: number }[] = [
    { rate: 1, latencyMs: 5, seconds: 60 },
    { rate: 4, latencyMs: 5, seconds: 60 },
    { rate: 10, latencyMs: 300, seconds: 60 },
    { rate: 20, latencyMs: 5, seconds: 60 },
    { rate: 80, latencyMs: 300, seconds: 60 },
    { rate: 250, latencyMs: 5, seconds: 60 },
    { rate: 1000, latencyMs: 300, seconds: 15 },
  ];

  it.each(cases)(
    'grants ≥ 97% of $rate/s, never above it, with the API answering in $latencyMs ms',
    async ({ rate, latencyMs, seconds }) => {
      const phoneNumberId = String(rate * 1000 + latencyMs);
      const auditKey = `${prefix}:audit:${phoneNumberId}`;
      const concurrency = sendConcurrencyOf({ rate, rates: new Map(), concurrency: undefined, attempts: 1, backoffMs: 0 }, phoneNumberId);
      const start = 1_000_000_000_000; // µs: any fixed instant
      const end = start + (seconds + 1) * 1_000_000;
      let now = start;
      const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId, messagesPerSecond: rate, auditKey, clock: () => now });
      await simulate(pacer, concurrency, latencyMs * 1000, start, end, (t) => (now = t));

      const stamps = await admissions(redis, auditKey);
      const afterFirstSecond = stamps.filter((ms) => ms >= start / 1000 + 1000 && ms < end / 1000);
      expect(afterFirstSecond.length).toBeGreaterThanOrEqual(Math.floor(0.97 * rate * seconds));
      expect(busiestWindow(stamps)).toBeLessThanOrEqual(rate);
      expect(concurrency).toBeGreaterThanOrEqual(DEFAULT_SEND_CONCURRENCY);
    },
  );
});

/**
 * `concurrency` sends, each in turn: reserve a slot, wait for it, ask the ceiling until
 * admitted, then hold its place for the API's answer (`latency`) before the next row. The
 * waits are what the worker sleeps (sleepMicros: a wait under 0.5 ms is not slept, a longer
 * one to the next whole ms). Events run in time order on the simulated clock.
 */
async function simulate(
  pacer: RedisSendPacer,
  concurrency: number,
  latency: number,
  start: number,
  end: number,
  setNow: (t: number) => void,
): Promise<void> {
  const slept = (micros: number) => (micros >= 500 ? Math.ceil(micros / 1000) * 1000 : 0);
  const senders = Array.from({ length: concurrency }, (_, i) => ({
    at: start,
    step: 'reserve',
    member: `s${i}-0`,
    n: 0,
  }));
  for (;;) {
    let next = senders[0]!;
    for (const sender of senders) if (sender.at < next.at) next = sender;
    if (next.at >= end) return;
    setNow(next.at);
    if (next.step === 'reserve') {
      next.at += slept(await pacer.grantWait());
      next.step = 'admit';
      continue;
    }
    const wait = await pacer.admitWait(next.member);
    if (wait > 0) {
      next.at += slept(wait);
      continue;
    }
    next.n++;
    next.member = `${next.member.split('-')[0]}-${next.n}`;
    next.at += latency;
    next.step = 'reserve';
  }
}
