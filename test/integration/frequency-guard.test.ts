import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { parseFrequencyCaps } from '../../src/config/frequency-caps.js';
import type { RedisClient } from '../../src/redis/key-scope.js';
import { RedisFrequencyGuard } from '../../src/redis/frequency/redis-frequency-guard.js';
import { frequencyKeys } from '../../src/redis/frequency/frequency-keys.js';
import { LedgerClock } from '../../src/redis/ledger/ledger-clock.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { TestClock } from '../support/test-clock.js';

/** The caps' script (src/redis/lua/frequency/take.lua, release.lua) against real Redis, on a clock the test moves. */
const HOUR = 3_600_000;
const ANA = '+4915110000001';
const A = '106540352242922';
const B = '106540352242923';

function definition(phoneNumberId: string, extra: Partial<CampaignDefinition> = {}): CampaignDefinition {
  return {
    id: 'c',
    createdAt: 0,
    phoneNumberId,
    category: 'MARKETING',
    source: { file: 'f.csv', phoneColumn: 'phone', fixWhitespace: false },
    ...extra,
  };
}

describe('RedisFrequencyGuard', () => {
  let redis: RedisClient;
  let prefix: string;
  let clock: TestClock;
  let guard: RedisFrequencyGuard;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('frequency-guard');
    clock = TestClock.stopped(Date.parse('2026-11-29T12:00:00Z'));
    const caps = parseFrequencyCaps('marketing:2/24h,any:3/7d');
    if (typeof caps === 'string') throw new Error(caps);
    const portfolios = new Map([
      [A, 'retail'],
      [B, 'retail'],
    ]);
    guard = new RedisFrequencyGuard(redis, { prefix, portfolios, caps, clock: new LedgerClock(redis, clock) });
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('counts per portfolio across numbers, frees a window as it moves, and takes back a release', async () => {
    expect((await guard.take(definition(A), ANA)).outcome).toBe('taken');
    clock.advance(HOUR);
    const second = await guard.take(definition(B), ANA);
    expect(second.outcome).toBe('taken');
    const third = await guard.take(definition(A), ANA);
    expect(third.outcome).toBe('capped');
    expect(third.outcome === 'capped' ? third.detail : '').toMatch(/marketing:2\/24h.*2026-11-30T12:00:00.000Z/);
    expect(await guard.capped(definition(B), [ANA, '+4915110000002'])).toEqual([true, false]);
    // A utility message is capped only by `any`: 2 of 3 used.
    expect((await guard.take(definition(A, { category: 'UTILITY' }), ANA)).outcome).toBe('taken');
    expect((await guard.take(definition(A, { category: 'UTILITY' }), ANA)).outcome).toBe('capped');
    // The send that never reached Meta is taken back.
    if (second.outcome === 'taken') await guard.release(second.counted);
    expect((await guard.take(definition(A, { category: 'UTILITY' }), ANA)).outcome).toBe('taken');
    // Past the day the marketing cap frees; the week's `any` cap still holds (3 in 7 d).
    clock.advance(24 * HOUR);
    expect((await guard.take(definition(A), ANA)).outcome).toBe('capped');
    clock.advance(7 * 24 * HOUR);
    expect((await guard.take(definition(A), ANA)).outcome).toBe('taken');
  });

  it('counts but never refuses --ignore-frequency-caps; a test send neither counts nor is capped', async () => {
    for (let i = 0; i < 3; i++) expect((await guard.take(definition(A, { ignoreFrequencyCaps: true }), ANA)).outcome).toBe('taken');
    expect((await guard.take(definition(A), ANA)).outcome).toBe('capped');
    expect(await guard.take(definition(A, { test: true }), ANA)).toEqual({ outcome: 'free' });
  });

  it('keeps nothing older than the longest window: the sweep drops people never sent to again', async () => {
    for (let i = 0; i < 30; i++) await guard.take(definition(A), `+49151100001${String(i).padStart(2, '0')}`);
    clock.advance(8 * 24 * HOUR);
    // Each take sweeps a few other fields: a few calls clear them all.
    for (let i = 0; i < 5; i++) await guard.take(definition(A), ANA);
    const { frequency } = frequencyKeys(prefix, 'retail');
    expect(await redis.hkeys(frequency)).toEqual([ANA]);
  });

  it('sweeps a large record too (a hash table, which HSCAN reads a few fields at a time) faster than takes fill it', async () => {
    const people = Array.from({ length: 600 }, (_, i) => `+4915120${String(100_000 + i)}`);
    for (const phone of people) await guard.take(definition(A), phone);
    const { frequency } = frequencyKeys(prefix, 'retail');
    expect(await redis.object('ENCODING', frequency)).toBe('hashtable');
    clock.advance(8 * 24 * HOUR);
    // As many takes as there are people: each adds one field at most and sweeps a few.
    let takes = 0;
    while ((await redis.hlen(frequency)) > 1 && takes < people.length) {
      await guard.take(definition(A), ANA);
      takes++;
    }
    expect(await redis.hkeys(frequency)).toEqual([ANA]);
  });
});
