import { afterAll, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { RedisSendPacer } from '../../src/redis/pacer/redis-send-pacer.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * A stall's bunch of late sends, on a simulated clock and the real Lua scripts: a worker
 * paced at 1,000/s stalls for 40 ms (a garbage collection, Redis held by a long script), and
 * the sends whose slots passed meanwhile ask the ceiling all at once when it ends. The ceiling
 * lets them through at four times the pace (a quarter of an interval apart, not as a bunch), since the stall
 * left their room. A window later they are still in
 * the ceiling's log: were the log full at the even pace, the sends then would wait for the
 * bunch to age out and leave as a bunch again, every window, for as long as the campaign
 * runs. The pacer spaces its slots wider than the ceiling's window, so the log has room and
 * the bunch stops coming back within a few windows.
 */
describe('RedisSendPacer: a stall costs its own time once, not every window after it', () => {
  const redis: Redis = testRedis();
  const prefix = freshPrefix('pacer-stall');
  afterAll(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('the ceiling stops holding sends back within 12 windows of a 40 ms stall at 1,000/s', async () => {
    const start = 1_000_000_000_000; // µs: any fixed instant
    let now = start;
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: 'stall', messagesPerSecond: 1000, clock: () => now });
    let row = 0;
    /** µs the ceiling held each send back, by when it was admitted. */
    const heldBack: { at: number; micros: number }[] = [];
    const admit = async (member: string): Promise<void> => {
      const from = now;
      now += await pacer.admitWait(member);
      heldBack.push({ at: now, micros: now - from });
    };
    /** One send at a time, each at its slot: the even pace. */
    const paced = async (untilMicros: number): Promise<void> => {
      while (now < untilMicros) {
        now += await pacer.grantWait();
        await admit(`row-${row++}`);
      }
    };

    await paced(start + 3_000_000);
    // The stall: every slot of the next 40 ms is reserved, and no send asks before it ends.
    const stallEnd = now + 40_000;
    const late: string[] = [];
    let wait = await pacer.grantWait();
    for (; now + wait < stallEnd; wait = await pacer.grantWait()) late.push(`row-${row++}`);
    // The first slot after the stall is the next send's; the late ones go before it.
    const nextSlot = now + wait;
    now = stallEnd;
    const lateFrom = heldBack.length;
    for (const member of late) await admit(member);
    now = Math.max(now, nextSlot);
    await admit(`row-${row++}`);
    await paced(stallEnd + 15_000_000);

    expect(late.length).toBeGreaterThanOrEqual(35);
    // Right after the stall the late sends went through at four times the pace: a quarter of an
    // interval (of the ceiling's window, 1,008 ms over 1,000) apart, the first at once.
    const caughtUp = heldBack.slice(lateFrom, lateFrom + late.length).map((h) => h.at - stallEnd);
    expect(caughtUp).toStrictEqual(late.map((_, i) => i * 252));
    // The ceiling may hold sends back while the bunch ages out of its log; by 12 windows
    // (12.2 s) after the stall it holds none back, and the pace is the slots' own.
    const after = heldBack.filter((h) => h.at > stallEnd + 12_216_000);
    expect(after.length).toBeGreaterThan(2500);
    expect(after.filter((h) => h.micros > 0)).toStrictEqual([]);
  });
});
