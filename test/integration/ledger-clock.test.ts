import { describe, expect, it } from 'vitest';
import type { RedisClient } from '../../src/redis/key-scope.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { TestClock } from '../support/test-clock.js';
import { ledgersPerTest } from '../support/test-ledger.js';

const HOUR = 3_600_000;

/**
 * The ledger's one clock (src/redis/ledger/ledger-clock.ts, src/redis/lua/includes/clock.lua):
 * without a clock set, Redis's TIME, in the scripts and in what the ledger decides in
 * TypeScript alike; a test's offset moves both, and a stopped clock holds both still.
 */
describe("the ledger's clock", () => {
  const openLedger = ledgersPerTest('ledger-clock');

  /** Redis's TIME in ms. */
  async function redisTime(redis: RedisClient): Promise<number> {
    const [seconds, micros] = await redis.time();
    return Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  }

  it("is Redis's TIME when no clock is set: a pause is stamped by it, and now() reads it", async () => {
    const redis = testRedis();
    const prefix = freshPrefix('clock-redis');
    // A ledger as production makes it: no clock option.
    const ledger = new RedisLedger(redis, prefix);
    try {
      await ledger.createCampaign(ledgerTestDefinition('c'));
      const before = await redisTime(redis);
      await ledger.pause('c', 'x');
      const after = await redisTime(redis);
      const pausedAt = (await ledger.status('c'))?.pausedAt ?? 0;
      expect(pausedAt).toBeGreaterThanOrEqual(before);
      expect(pausedAt).toBeLessThanOrEqual(after);
      const now = await ledger.now();
      expect(now).toBeGreaterThanOrEqual(after);
      expect(now).toBeLessThanOrEqual(await redisTime(redis));
    } finally {
      await removePrefix(redis, prefix);
      await redis.quit();
    }
  });

  it("an offset moves Redis's clock: the scripts and the TypeScript side alike", async () => {
    const clock = TestClock.running();
    const { ledger, redis } = openLedger({}, clock);
    clock.advance(48 * HOUR);
    const before = (await redisTime(redis)) + 48 * HOUR;
    await ledger.createCampaign({ ...ledgerTestDefinition('c'), startsAt: before + HOUR });
    await ledger.recordIngested('c', LEDGER_TEST_NUMBER, [queuedRow(1)]);
    await ledger.pause('c', 'x');
    expect((await ledger.status('c'))?.pausedAt).toBeGreaterThanOrEqual(before);
    expect(await ledger.now()).toBeGreaterThanOrEqual(before);
    await ledger.resume('c');
    expect((await ledger.status('c'))?.state).toBe('scheduled');
    clock.advance(HOUR);
    expect((await ledger.status('c'))?.state).toBe('ingesting');
    const { events } = await ledger.feed(LEDGER_TEST_NUMBER, { windowSize: 10, minBatch: 1, refreshAfterMs: HOUR, refreshMost: 0 });
    expect(events).toMatchObject([{ kind: 'started', campaignId: 'c', startsAt: before + HOUR }]);
    expect(events[0]?.kind === 'started' && events[0].at).toBeGreaterThanOrEqual(before + HOUR);
  });

  it('a stopped clock stands still: every time the ledger records is that time', async () => {
    const at = Date.parse('2030-01-01T00:00:00Z');
    const { ledger } = openLedger({}, TestClock.stopped(at));
    await ledger.createCampaign(ledgerTestDefinition('c'));
    await ledger.pause('c', 'x');
    expect((await ledger.status('c'))?.pausedAt).toBe(at);
    expect(await ledger.now()).toBe(at);
    expect((await ledger.windowedCampaigns(LEDGER_TEST_NUMBER)).now).toBe(at);
    await ledger.addOptOut(LEDGER_TEST_NUMBER, '+4915100000001');
    expect((await ledger.optOuts(LEDGER_TEST_NUMBER)).get('+4915100000001')?.at).toBe(at);
  });
});
