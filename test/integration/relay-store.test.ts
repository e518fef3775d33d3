import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { RedisRelayStore, type RelayEntry } from '../../src/redis/relay/redis-relay-store.js';
import { readRelayFigures } from '../../src/redis/relay/relay-figures.js';
import { relayDeadKey, relayKeys, relayLeaseKey } from '../../src/redis/relay/relay-keys.js';
import { RedisWebhookIntake } from '../../src/redis/webhooks/redis-webhook-intake.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * The relay's state on a real Redis: the intake numbers what it relays, a new target's cursor
 * starts where it is told, the lease lets one owner at a time move a cursor (forward only), a
 * dead body is copied to the target's dead letters, and the stream is trimmed to what the
 * slowest configured target still needs.
 */
describe('the relay store', () => {
  let redis: Redis;
  let prefix: string;
  let store: RedisRelayStore;
  let intake: RedisWebhookIntake;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('relay-store');
    store = new RedisRelayStore(redis, prefix);
    intake = new RedisWebhookIntake(redis, prefix, { max: 100, relay: true });
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  /** Appends `count` bodies through the intake (relay on); answers their relay entries, oldest first. */
  async function accept(count: number, at: number): Promise<RelayEntry[]> {
    const before = await redis.xlen(relayKeys(prefix).relay);
    for (let i = 0; i < count; i++) {
      const body = Buffer.from(`{"n":${before + i}}`);
      await intake.append(body, (before + i).toString(16).padStart(64, '0'), at, 'application/json');
    }
    const entries = await store.entriesAfter({ id: '0-0', ordinal: 0 }, 1000);
    return entries.slice(-count);
  }

  it('numbers the entries; a new target starts after `from` with the ordinal before it; a known one keeps its cursor', async () => {
    const [e1, e2, e3] = (await accept(3, 1000)) as [RelayEntry, RelayEntry, RelayEntry];
    expect([e1.ordinal, e2.ordinal, e3.ordinal]).toEqual([1, 2, 3]);
    expect(e1.contentType).toBe('application/json');
    expect(e1.receivedAt).toBe(1000);
    expect(e2.body.toString()).toBe('{"n":1}');

    // From a time between the first entry and the second: the second is the first it gets.
    const between = Number(e2.id.split('-')[0]) - 1;
    const cursor = await store.cursor('a', between);
    expect(cursor).toEqual({ id: `${between}-0`, ordinal: between < Number(e1.id.split('-')[0]) ? 0 : 1 });
    expect(await store.cursor('a', 0)).toEqual(cursor);
    // A target whose start is past every entry: none waits.
    expect(await store.cursor('b', Date.now() + 60_000)).toMatchObject({ ordinal: 3 });
    const [a, b] = await readRelayFigures(redis, prefix, ['a', 'b'], Date.now());
    expect(b?.waiting).toBe(0);
    expect(a?.waiting).toBe(3 - cursor.ordinal);
  });

  it('one owner holds a lease at a time; only it moves the cursor, and only forward; a dead body is kept with its reason', async () => {
    const [e1, e2] = (await accept(2, 5000)) as [RelayEntry, RelayEntry];
    await store.cursor('t', 0);
    expect(await store.advance('t', 'one', e1, 'forwarded', '', 10)).toBe('lost');

    expect(await store.holdLease('t', 'one', 10_000)).toBe(true);
    expect(await store.holdLease('t', 'two', 10_000)).toBe(false);
    expect(await store.holdLease('t', 'one', 10_000)).toBe(true);
    expect(await store.advance('t', 'two', e1, 'forwarded', '', 10)).toBe('lost');
    expect(await store.advance('t', 'one', e1, 'forwarded', '', 10)).toBe('done');
    expect(await store.advance('t', 'one', e1, 'forwarded', '', 10)).toBe('behind');
    expect(await store.advance('t', 'one', e2, 'dead', 'HTTP 503', 7777)).toBe('done');

    const [letter] = (await redis.xrange(relayDeadKey(prefix, 't'), '-', '+')) as [string, string[]][];
    expect(letter?.[1]).toEqual([
      'entry',
      e2.id,
      'reason',
      'HTTP 503',
      'dead_at',
      '7777',
      'body',
      '{"n":1}',
      'at',
      '5000',
      'type',
      'application/json',
      'n',
      '2',
    ]);
    expect(await readRelayFigures(redis, prefix, ['t'], 6000)).toEqual([
      { target: 't', forwarded: 1, retried: 0, dead: 1, waiting: 0, lagSeconds: 0 },
    ]);

    await store.releaseLease('t', 'two');
    expect(await redis.get(relayLeaseKey(prefix, 't'))).toBe('one');
    await store.releaseLease('t', 'one');
    expect(await store.holdLease('t', 'two', 10_000)).toBe(true);
  });

  it('waiting and lag: the bodies after the cursor and the age of the oldest', async () => {
    const [e1] = (await accept(3, 1_000_000)) as [RelayEntry];
    await store.cursor('t', 0);
    await store.holdLease('t', 'me', 10_000);
    await store.advance('t', 'me', e1, 'forwarded', '', 0);
    await store.countRetry('t');
    expect(await readRelayFigures(redis, prefix, ['t'], 1_004_500)).toEqual([
      { target: 't', forwarded: 1, retried: 1, dead: 0, waiting: 2, lagSeconds: 4.5 },
    ]);
  });

  it('trims to the slowest configured target, drops the cursors of others, and trims nothing while a target has none', async () => {
    const [e1, e2, e3, e4] = (await accept(4, 1)) as [RelayEntry, RelayEntry, RelayEntry, RelayEntry];
    for (const target of ['fast', 'slow', 'gone']) {
      await store.cursor(target, 0);
      await store.holdLease(target, 'me', 10_000);
    }
    await store.advance('gone', 'me', e1, 'forwarded', '', 0);
    for (const entry of [e1, e2, e3]) await store.advance('fast', 'me', entry, 'forwarded', '', 0);
    await store.advance('slow', 'me', e1, 'forwarded', '', 0);

    await store.trim(['fast', 'slow', 'new']);
    expect(await redis.xlen(relayKeys(prefix).relay)).toBe(4);
    expect(await redis.hexists(relayKeys(prefix).cursors, 'gone')).toBe(0);

    await store.trim(['fast', 'slow']);
    const left = await store.entriesAfter({ id: '0-0', ordinal: 0 }, 10);
    expect(left.map((entry) => entry.id)).toEqual([e2.id, e3.id, e4.id]);
  });
});
