import { afterEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import type { RequestWrite } from '../../src/cloud-api/post-exchange.js';
import { RedisSendPacer, WAKE_GRID_MS } from '../../src/redis/pacer/redis-send-pacer.js';
import { pacerKeys } from '../../src/redis/service-keys.js';
import { admissions, busiestWindow } from '../support/pacer-audit.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * The pacer is checked where it decides: every admission is stamped on Redis's clock (the
 * audit key), so a loaded machine that delays the callers cannot make the test pass or fail.
 * (What a receiver sees after network and event-loop delays is a figure for `npm run bench`.)
 */
describe('RedisSendPacer (shared by every worker of a phone number)', () => {
  const connections: Redis[] = [];
  const prefix = freshPrefix('pacer');
  afterEach(async () => {
    const first = connections[0];
    if (first !== undefined) await removePrefix(first, prefix);
    await Promise.all(connections.splice(0).map((c) => c.quit()));
  });

  it('two workers together never admit more than the rate in any second', async () => {
    const rate = 40;
    const auditKey = `${prefix}:audit`;
    let returned = 0;
    const worker = async () => {
      const redis = testRedis();
      connections.push(redis);
      const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '1', messagesPerSecond: rate, auditKey });
      // Each worker runs 10 sends at a time, as a BullMQ worker with concurrency 10 would.
      await Promise.all(
        Array.from({ length: 10 }, async () => {
          for (let i = 0; i < 6; i++) {
            await pacer.reserveSlot();
            await pacer.admit();
            returned++;
          }
        }),
      );
    };
    await Promise.all([worker(), worker()]);

    const stamps = await admissions(connections[0] as Redis, auditKey);
    expect(returned).toBe(120);
    expect(stamps).toHaveLength(120);
    expect(busiestWindow(stamps)).toBeLessThanOrEqual(rate);
    // The ceiling counts a second plus a guard, so 120 admissions span at least two such windows.
    expect((stamps.at(-1) ?? 0) - (stamps[0] ?? 0)).toBeGreaterThan(2000);
  });

  it('the ceiling alone (no slots reserved) holds 25 admissions asked at once to the rate in any second', async () => {
    const rate = 10;
    const auditKey = `${prefix}:audit-late`;
    const redis = testRedis();
    connections.push(redis);
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '2', messagesPerSecond: rate, auditKey });
    // No slots: the ceiling alone must hold 25 immediate admissions to 10 per second.
    await Promise.all(Array.from({ length: 25 }, () => pacer.admit()));
    const stamps = await admissions(redis, auditKey);
    expect(stamps).toHaveLength(25);
    expect(busiestWindow(stamps)).toBeLessThanOrEqual(rate);
  });

  it('a send never leaves before its stamp, even when its admission waited in Redis before Redis read its clock', async () => {
    const auditKey = `${prefix}:audit-blocked`;
    const redis = testRedis();
    const other = testRedis();
    connections.push(redis, other);
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '10', messagesPerSecond: 100, auditKey });
    // Quick calls first: the pacer learns where Redis's clock stands against its own.
    for (let i = 0; i < 5; i++) await pacer.admit();
    // On the same connection, so the admission below waits behind it: Redis busy for 50 ms (a long script).
    const busy = redis.eval(BUSY_FOR_MS, 0, 50);
    const admission = await pacer.admit(performance.now() + 80);
    const [seconds, micros] = await other.time();
    const stamp = Number(await other.zscore(auditKey, admission.member));
    // Redis's time once the send may leave is past its stamp (asked for after it left: no later than a round trip).
    expect(Number(seconds) * 1_000_000 + Number(micros)).toBeGreaterThanOrEqual(stamp);
    await busy;
  });

  it('sends the ceiling holds back are queued, each at its own moment, and none asks again', async () => {
    const rate = 5;
    const auditKey = `${prefix}:audit-queued`;
    const redis = testRedis();
    connections.push(redis);
    let now = 0;
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '6', messagesPerSecond: rate, auditKey, clock: () => now });
    for (const at of [0, 100, 200, 300, 400]) {
      now = at * 1000;
      expect(await pacer.admitWait(`first-${at}`)).toBe(0);
    }
    // Three more ask at once at 500 ms: each goes when one of the first five leaves the
    // window (a second plus the guard, 8 ms), in the order they asked, not all at the first.
    now = 500_000;
    const waits = [await pacer.admitWait('a'), await pacer.admitWait('b'), await pacer.admitWait('c')];
    expect(waits.map((w) => now + w)).toEqual([1_008_001, 1_108_001, 1_208_001]);
    // The ceiling counts the queued sends too: one asking later goes after them.
    now = 1_300_000;
    expect(now + (await pacer.admitWait('d'))).toBe(1_308_001);
    const stamps = await admissions(redis, auditKey);
    expect(stamps).toEqual([0, 100, 200, 300, 400, 1008.001, 1108.001, 1208.001, 1308.001]);
    expect(busiestWindow(stamps, 1008)).toBeLessThanOrEqual(rate);
  });

  it('the sends of one turn share one call for their slots, one for their admissions, one for their corrections', async () => {
    const rate = 3;
    const auditKey = `${prefix}:audit-batched`;
    const redis = testRedis();
    connections.push(redis);
    let now = 0;
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '7', messagesPerSecond: rate, auditKey, clock: () => now });
    const calls = { slots: 0, admits: 0 };
    const counted = redis as unknown as Record<'cwReserveSlot' | 'cwAdmit', (...args: unknown[]) => Promise<unknown>>;
    for (const [command, step] of [
      ['cwReserveSlot', 'slots'],
      ['cwAdmit', 'admits'],
    ] as const) {
      const real = counted[command].bind(redis);
      counted[command] = (...args: unknown[]) => {
        calls[step]++;
        return real(...args);
      };
    }
    // Four slots asked together: one call, each an interval (a second plus 9 ms, over 3) after the one before.
    const slots = await Promise.all(Array.from({ length: 4 }, () => pacer.grantWait()));
    expect(slots).toEqual([0, 336_333, 672_666, 1_008_999]);
    // Five admissions asked together: the ceiling lets three go, a quarter of an interval (84 ms)
    // apart, and queues two, in order, each when one of the first three leaves the window.
    const waits = await Promise.all(['a', 'b', 'c', 'd', 'e'].map((member) => pacer.admitWait(member)));
    expect(waits).toEqual([0, 84_000, 168_000, 1_008_001, 1_092_001]);
    expect(calls).toEqual({ slots: 1, admits: 1 });
    // Two late departures: gathered into one call too, each answered as alone.
    now = 100_000;
    expect(await Promise.all([pacer.moveStamp('a', 5_000), pacer.moveStamp('b', 7_000)])).toEqual([5_000, 91_000]);
    expect(calls).toEqual({ slots: 1, admits: 2 });
    const stamps = await admissions(redis, auditKey);
    expect(stamps).toEqual([5, 91, 168, 1008.001, 1092.001]);
  });

  it('a correction rides in the call of the admissions asked ahead with it, and is applied before them', async () => {
    const auditKey = `${prefix}:audit-riding`;
    const redis = testRedis();
    connections.push(redis);
    let now = 0;
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '9', messagesPerSecond: 100, auditKey, clock: () => now });
    let calls = 0;
    const counted = redis as unknown as Record<'cwAdmit', (...args: unknown[]) => Promise<unknown>>;
    const real = counted.cwAdmit.bind(redis);
    counted.cwAdmit = (...args: unknown[]) => {
      calls++;
      return real(...args);
    };
    expect(await pacer.admitWait('early')).toBe(0);
    // 10 ms later: 'early' left 4 ms late, and the next send asks for its slot 30 ms ahead.
    now = 10_000;
    const [moved] = await Promise.all([pacer.moveStamp('early', 4_000), pacer.admit(performance.now() + 30)]);
    expect(moved).toBe(4_000);
    expect(calls).toBe(2);
    const [early, next] = await admissions(redis, auditKey);
    expect(early).toBe(4);
    // Stamped at its slot: 30 ms after the ask, less the time the ask gathered (a few ms) before the call.
    expect(next).toBeGreaterThan(30);
    expect(next).toBeLessThanOrEqual(40);
  });

  it('sends whose slots are near wake together before them, a lead or more ahead: one turn for several, not one each', async () => {
    const redis = testRedis();
    connections.push(redis);
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '10', messagesPerSecond: 1000 });
    const lead = 10;
    const woken: { at: number; left: number; slotAt: number }[] = [];
    // 60 slots about 1 ms apart, asked together as a group's rows ask for theirs.
    await Promise.all(
      Array.from({ length: 60 }, async () => {
        const left = await pacer.reserveSlot(lead);
        const at = performance.now();
        woken.push({ at, left, slotAt: at + left });
      }),
    );
    const slots = woken.map((w) => w.slotAt).sort((a, b) => a - b);
    const span = (slots.at(-1) ?? 0) - (slots[0] ?? 0);
    expect(span).toBeGreaterThan(50);
    // Sends woken by the same timer wake at the same moment: about one turn a WAKE_GRID_MS,
    // where a timer each would take one turn a send.
    const turns = new Set(woken.map((w) => w.at.toFixed(1))).size;
    expect(turns).toBeLessThanOrEqual(Math.ceil(span / WAKE_GRID_MS) + 4);
    expect(turns).toBeLessThan(30);
    // None woke after its slot; those that waited were woken at least `lead` ahead (a late timer aside).
    expect(woken.every((w) => w.left >= 0)).toBe(true);
  });

  it('a send that left late counts where it left: the sends after it keep the ceiling at the receiver', async () => {
    const rate = 5;
    const auditKey = `${prefix}:audit-departed`;
    const redis = testRedis();
    connections.push(redis);
    let now = 0;
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '4', messagesPerSecond: rate, auditKey, clock: () => now });
    // The first send is admitted at 0 but leaves 60 ms later (a stalled event loop); four more
    // leave on time, each more than a quarter of an interval (50.4 ms) after the one before.
    expect(await pacer.admitWait('late')).toBe(0);
    now = 60_000;
    await pacer.moveStamp('late', 60_000);
    for (const at of [200, 400, 600, 800]) {
      now = at * 1000;
      expect(await pacer.admitWait(`on-time-${at}`)).toBe(0);
    }
    // 1,030 ms: the late send's admission (0) is out of the window (1 s + the guard), but it
    // left at 60 ms, so a sixth send now would make six in the receiver's second (60, 1060].
    now = 1_030_000;
    const wait = await pacer.admitWait('sixth');
    expect(wait).toBeGreaterThan(0);
    // It may go once the late send's departure has left the window: 60 ms + 1,008 ms.
    expect(now + wait).toBe(60_000 + 1_008_000 + 1);
    now += wait;
    expect(await pacer.admitWait('sixth')).toBe(0);
    const stamps = await admissions(redis, auditKey);
    expect(stamps).toEqual([60, 200, 400, 600, 800, 1068.001]);
    expect(busiestWindow(stamps)).toBeLessThanOrEqual(rate);
  });

  it('a send whose write was stretched by a pause is stamped where the write ended, and counted once', async () => {
    const rate = 5;
    const auditKey = `${prefix}:audit-stretched`;
    const redis = testRedis();
    connections.push(redis);
    let now = 0;
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '11', messagesPerSecond: rate, auditKey, clock: () => now });
    // The first send's write began on time and ended 4 ms later (the worker lost its core in the
    // middle): its bytes left between 0 and 4 ms. Its stamp moves to 4 ms.
    expect(await pacer.admitWait('stretched')).toBe(0);
    now = 5_000;
    expect(await pacer.moveStamp('stretched', 4_000)).toBe(4_000);
    // Counted once: the four sends after it in the same second all go at their slots.
    for (const at of [200, 400, 600, 800]) {
      now = at * 1000;
      expect(await pacer.admitWait(`on-time-${at}`)).toBe(0);
    }
    // A sixth waits until the stretched send's end has left the window (4 ms + 1,008 ms).
    now = 1_000_000;
    const wait = await pacer.admitWait('sixth');
    expect(now + wait).toBe(4_000 + 1_008_000 + 1);
    const stamps = await admissions(redis, auditKey);
    expect(stamps).toEqual([4, 200, 400, 600, 800, 1012.001]);
    expect(busiestWindow(stamps)).toBeLessThanOrEqual(rate);
  });

  it('left(): a write stretched by a pause moves the stamp to where it ended, less the allowance, in the same entry', async () => {
    const redis = testRedis();
    connections.push(redis);
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '12', messagesPerSecond: 100 });
    const log = pacerKeys(prefix, '12').sent;
    await (await pacer.admit()).left(writtenNow());
    const stretched = await pacer.admit();
    const stretchedStamp = Number(await redis.zscore(log, stretched.member));
    const startedAt = performance.now();
    while (performance.now() - startedAt < 10);
    await stretched.left({ endedAt: performance.now() });
    // Its write ended 10 ms or more after it began: the stamp moved that far, less the 1 ms allowance; one entry still.
    expect(Number(await redis.zscore(log, stretched.member)) - stretchedStamp).toBeGreaterThanOrEqual(9_000);
    expect(await redis.zcard(log)).toBe(2);
  });

  it('a correction never moves a stamp past the time now: an ask that waited through a failover holds later sends no more', async () => {
    const auditKey = `${prefix}:audit-capped`;
    const redis = testRedis();
    connections.push(redis);
    const rate = 2;
    let now = 1_000_000;
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '8', messagesPerSecond: rate, auditKey, clock: () => now });
    expect(await pacer.admitWait('retried')).toBe(0);
    // Its ask waited 3 s for a promoted replica before Redis stamped it; it leaves 2 ms after the stamp.
    now += 2_000;
    expect(await pacer.moveStamp('retried', 3_000_000)).toBe(now);
    // A second send, more than a quarter of an interval (126 ms) later, fills the log; a third waits
    // for the first to leave the window where it really left (2 ms after its stamp), not 3 s later.
    now += 200_000;
    expect(await pacer.admitWait('second')).toBe(0);
    expect(now + (await pacer.admitWait('third'))).toBe(1_002_000 + 1_008_000 + 1);
    // A move asked at once after the admission stays at the time now: the send left no later.
    now += 2_000_000;
    expect(await pacer.admitWait('slow-ask')).toBe(0);
    expect(await pacer.moveStamp('slow-ask', 8_000)).toBe(now);
  });

  it('a send that leaves on time costs no correction; one that leaves late moves its stamp to within 1 ms of when it left', async () => {
    const auditKey = `${prefix}:audit-left`;
    const redis = testRedis();
    connections.push(redis);
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '5', messagesPerSecond: 100, auditKey });
    const onTime = await pacer.admit();
    await onTime.left(writtenNow());
    const late = await pacer.admit();
    const [admittedAt] = await redis.zmscore(auditKey, late.member);
    const heldFrom = performance.now();
    // The send is held 30 ms between its admission and its departure (a busy event loop).
    while (performance.now() - heldFrom < 30);
    await late.left(writtenNow());
    const [leftAt, onTimeAt] = await redis.zmscore(auditKey, late.member, onTime.member);
    expect(onTimeAt).not.toBeNull();
    // Moved to within the allowance (1 ms, beyond the usual round trip) of when it left.
    expect(Number(leftAt) - Number(admittedAt)).toBeGreaterThanOrEqual(30_000 - 1_000 - 1_000);
    const stamps = await admissions(redis, auditKey);
    expect(stamps).toHaveLength(2);
  });

  it("a cold start's slow answer is not taken as the usual round trip: its first send, left late, still moves its stamp", async () => {
    const auditKey = `${prefix}:audit-cold`;
    const redis = testRedis();
    connections.push(redis);
    // Another pacer loads the script first, so the call below is one round trip.
    await (await new RedisSendPacer(redis, { prefix, phoneNumberId: '6', messagesPerSecond: 100 }).admit()).left(writtenNow());
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '7', messagesPerSecond: 100, auditKey });

    const asking = pacer.admit();
    // The ask is written (the batch goes at setImmediate), then its answer waits 30 ms to be read.
    await new Promise((resolve) => setImmediate(resolve));
    const blockedFrom = performance.now();
    while (performance.now() - blockedFrom < 30);
    const first = await asking;
    const [admittedAt] = await redis.zmscore(auditKey, first.member);
    await first.left(writtenNow());

    const [leftAt] = await redis.zmscore(auditKey, first.member);
    // Stamped when Redis answered, gone 30 ms later: moved to within the allowance (1 ms) of that.
    expect(Number(leftAt) - Number(admittedAt)).toBeGreaterThanOrEqual(30_000 - 1_000 - 1_000);
  });

  it('keeps no admission record unless asked: only the slot and the self-trimming log', async () => {
    const redis = testRedis();
    connections.push(redis);
    const pacer = new RedisSendPacer(redis, { prefix, phoneNumberId: '3', messagesPerSecond: 50 });
    for (let i = 0; i < 5; i++) {
      await pacer.reserveSlot();
      await pacer.admit();
    }
    const keys: string[] = [];
    let cursor = '0';
    do {
      const [next, found] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      keys.push(...found);
    } while (cursor !== '0');
    // The slot (60 s TTL) and at most the log (2 s TTL, so it may be gone already on a slow
    // machine): no admission record, nothing that grows with the sends.
    expect(keys).toContain(`${prefix}:{3}:pacer:3:slot`);
    expect(keys.filter((k) => k !== `${prefix}:{3}:pacer:3:slot` && k !== `${prefix}:{3}:pacer:3:sent`)).toStrictEqual([]);
    for (const key of keys) expect(await redis.pttl(key)).not.toBe(-1);
  });
});

/** A request written at once, now. */
function writtenNow(): RequestWrite {
  return { endedAt: performance.now() };
}

/** Keeps Redis busy for ARGV[1] ms, as a long script of another worker would. */
const BUSY_FOR_MS = `
local t = redis.call('TIME')
local start = t[1] * 1000000 + t[2]
repeat t = redis.call('TIME') until t[1] * 1000000 + t[2] - start >= tonumber(ARGV[1]) * 1000
return 1`;
