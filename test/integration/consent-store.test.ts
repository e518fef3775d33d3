import { afterAll, describe, expect, it } from 'vitest';
import type { ConsentEntry } from '../../src/consent/consent-entry.js';
import { CONSENT_KEPT, RedisConsent } from '../../src/redis/consent/redis-consent.js';
import { consentKeys } from '../../src/redis/consent/consent-keys.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/** record.lua on a real Redis: each history newest first, bounded, an entry kept once, a source's words kept once. */
describe('RedisConsent (record.lua)', () => {
  const redis = testRedis();
  const prefix = freshPrefix('consent-store');
  const store = new RedisConsent(redis, prefix);
  afterAll(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  const entry = (at: number, kind: ConsentEntry['kind'] = 'opt-in', source = `form ${at}`): ConsentEntry => ({
    phone: '+4915112345678',
    kind,
    at,
    source,
  });

  it('places each entry by its time whatever the order it comes in, keeps the newest CONSENT_KEPT, and each entry once', async () => {
    const times = Array.from({ length: 30 }, (_, i) => 1_700_000_000_000 + i * 60_000);
    const shuffled = [...times].sort((a, b) => ((a * 7919) % 13) - ((b * 7919) % 13));
    // In three calls, one entry given twice, and one entry again in a later call.
    await store.record(
      'shop',
      shuffled.slice(0, 12).map((at) => entry(at)),
    );
    await store.record('shop', [...shuffled.slice(12).map((at) => entry(at)), entry(shuffled[12] ?? 0)]);
    await store.record('shop', [entry(times[29] ?? 0)]);
    const history = await store.history('shop', '+4915112345678');
    expect(CONSENT_KEPT).toBe(20);
    expect(history.map((e) => e.at)).toEqual(times.slice(10).reverse());
    expect(history.map((e) => e.source)).toEqual(
      times
        .slice(10)
        .reverse()
        .map((at) => `form ${at}`),
    );
    // Older than every entry kept: not kept either.
    await store.record('shop', [entry(times[0] ?? 0, 'opt-out')]);
    expect((await store.history('shop', '+4915112345678')).map((e) => e.at)).toEqual(times.slice(10).reverse());
    // Of two entries at one time, the one recorded later is the newer.
    const last = times[29] ?? 0;
    await store.record('shop', [entry(last, 'opt-out', 'opt-out keyword')]);
    const [newest, next] = await store.history('shop', '+4915112345678');
    expect([newest?.kind, newest?.source, next?.source]).toEqual(['opt-out', 'opt-out keyword', `form ${last}`]);
    expect(await store.consented('shop', ['+4915112345678'])).toEqual([false]);
  });

  it('records more than one call holds, keeps each source once, and answers consented per phone in order', async () => {
    const phones = Array.from({ length: 1_234 }, (_, i) => `+49151${String(10_000_000 + i)}`);
    await store.record(
      'big',
      phones.map((phone, i) => ({ phone, kind: i % 3 === 0 ? 'opt-out' : 'opt-in', at: 1_750_000_000_000, source: 'consent file a.csv' })),
    );
    const answers = await store.consented('big', [...phones, '+4915199999999']);
    expect(answers).toEqual([...phones.map((_, i) => i % 3 !== 0), false]);
    const { consent, sources } = consentKeys(prefix, 'big');
    expect(await redis.hlen(consent)).toBe(1_234);
    // s:<words>, i:<id>, n: one source.
    expect(await redis.hlen(sources)).toBe(3);
    expect(await redis.hget(consent, '4915110000001')).toMatch(/^\+[0-9a-z]{9}\.1$/);
    expect(await store.history('big', '+4915110000001')).toEqual([
      { phone: '+4915110000001', kind: 'opt-in', at: 1_750_000_000_000, source: 'consent file a.csv' },
    ]);
  });

  it('refuses an entry it cannot hold before recording any of the call', async () => {
    await expect(store.record('odd', [entry(1), { ...entry(2), phone: 'not a phone' }])).rejects.toThrow(/E\.164/);
    await expect(store.record('odd', [entry(-5)])).rejects.toThrow(/whole ms from 1970/);
    expect(await store.history('odd', '+4915112345678')).toEqual([]);
  });
});
