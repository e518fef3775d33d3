import type { Redis } from 'ioredis';
import { afterAll, beforeEach, describe, expect, it } from 'vitest';
import { newClickToken } from '../../src/clicks/click-token.js';
import { RedisClickLinks } from '../../src/redis/clicks/redis-click-links.js';
import { clickIndexKey } from '../../src/redis/clicks/click-keys.js';
import { eventStreamKey } from '../../src/redis/events/event-keys.js';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import { toRecord, type StoredRow } from '../../src/redis/ledger/stored-row.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { storedRowOf } from '../support/stored-rows.js';
import { putStoredRow } from '../support/stored-rows.js';

/**
 * The click record (src/redis/lua/clicks/record-click.lua) on a real Redis, with the ledger's
 * clock stopped: a row's first click time is set once, its count grows, the campaign's
 * `n:clicked` counts the row once, a `row.clicked` event goes out (only from a campaign that
 * emits events) with the destination; a token the index lacks, or whose row is gone, records nothing.
 */
const NUMBER = '106540352242922';
const CAMPAIGN = 'c-clicks';
const AT = Date.parse('2026-12-01T09:00:00Z');
const PHONE = '+4915112345678';

describe('recording a click', () => {
  const redis: Redis = testRedis();
  let prefix: string;
  let links: RedisClickLinks;
  let keys: ReturnType<typeof campaignLedgerKeys>;

  beforeEach(async () => {
    prefix = freshPrefix('click-record');
    links = new RedisClickLinks(redis, prefix, { offsetMs: 0, stoppedAt: AT });
    keys = campaignLedgerKeys(prefix, NUMBER, CAMPAIGN);
    await redis.hset(keys.campaign, 'createdAt', String(AT - 60_000));
    await putStoredRow(redis, keys.rows, 3, JSON.stringify({ p: PHONE, s: 'sent', v: ['Ana', 'x'] }));
    await putStoredRow(redis, keys.rows, 4, JSON.stringify({ p: PHONE, s: 'sent' }));
    return () => removePrefix(redis, prefix);
  });

  afterAll(async () => {
    await redis.quit();
  });

  const row = async (n: number) => toRecord(n, (await storedRowOf(redis, keys.rows, n)) ?? ({} as StoredRow));

  it('sets the first time once, counts every click, counts the row once in n:clicked, emits row.clicked once', async () => {
    await redis.hset(keys.campaign, 'events', '1');
    const token = newClickToken();
    const other = newClickToken();
    await links.record(NUMBER, CAMPAIGN, [
      { token, row: 3, url: 'https://shop.example.com/a' },
      { token: other, row: 4, url: 'https://shop.example.com/b' },
    ]);
    expect(await redis.hget(keys.campaign, 'n:clicked')).toBe('0');
    expect(await links.click(token)).toStrictEqual({ url: 'https://shop.example.com/a', first: true, clicks: 1 });
    const later = new RedisClickLinks(redis, prefix, { offsetMs: 0, stoppedAt: AT + 5000 });
    expect(await later.click(token)).toStrictEqual({ url: 'https://shop.example.com/a', first: false, clicks: 2 });
    expect(await row(3)).toMatchObject({ clickedAt: AT, clicks: 2, status: 'sent' });
    // The row's other fields are kept as they were.
    expect(await storedRowOf(redis, keys.rows, 3)).toMatchObject({ v: ['Ana', 'x'], kt: AT, kn: 2 });
    expect(await redis.hget(keys.campaign, 'n:clicked')).toBe('1');
    expect(await later.click(other)).toMatchObject({ first: true });
    expect(await redis.hget(keys.campaign, 'n:clicked')).toBe('2');
    const events = await redis.xrange(eventStreamKey(prefix, NUMBER), '-', '+');
    expect(events.map(([, fields]) => fields)).toStrictEqual([
      ['t', 'row.clicked', 'c', CAMPAIGN, 'at', String(AT), 'r', '3', 'p', PHONE, 'url', 'https://shop.example.com/a'],
      ['t', 'row.clicked', 'c', CAMPAIGN, 'at', String(AT + 5000), 'r', '4', 'p', PHONE, 'url', 'https://shop.example.com/b'],
    ]);
    expect(await links.destinations(NUMBER, CAMPAIGN, [other, token, newClickToken()])).toStrictEqual([
      'https://shop.example.com/b',
      'https://shop.example.com/a',
      undefined,
    ]);
  });

  it('emits nothing from a campaign without hooks; an unknown, malformed or purged token records nothing', async () => {
    const token = newClickToken();
    await links.record(NUMBER, CAMPAIGN, [{ token, row: 3, url: 'https://shop.example.com/a' }]);
    expect(await links.click(token)).toMatchObject({ first: true });
    expect(await redis.exists(eventStreamKey(prefix, NUMBER))).toBe(0);
    expect(await links.click(newClickToken())).toBeUndefined();
    expect(await links.click('not a token')).toBeUndefined();
    // A row gone (its campaign purged before its links): nothing is recorded or created.
    const orphan = newClickToken();
    await links.record(NUMBER, CAMPAIGN, [{ token: orphan, row: 9, url: 'https://shop.example.com/z' }]);
    expect(await links.click(orphan)).toBeUndefined();
    expect(await redis.hexists(keys.rows, '9')).toBe(0);
    // Forgotten with the campaign's personal data: the index and the campaign's links go.
    expect(await links.forget(NUMBER, CAMPAIGN)).toBe(2);
    expect(await links.click(token)).toBeUndefined();
    expect(await redis.hlen(clickIndexKey(prefix))).toBe(0);
    expect(await redis.hget(keys.campaign, 'n:clicked')).toBe('1');
  });
});
