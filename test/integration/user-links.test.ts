import { createHash } from 'node:crypto';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { joinUsers, type PendingUserEvent, type StatusEvent, type UserLinkStore } from '../../src/campaigns/settle/user-joins.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisUserLinks, userLinkKeys } from '../../src/redis/webhooks/redis-user-links.js';
import { userLinkScripts } from '../../src/redis/webhooks/user-link-scripts.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { WebhookConsumer } from '../../src/webhooks/webhook-consumer.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER, ledgerTestDefinition, queuedRow, sendAllAsW } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * Business-scoped user IDs on a real Redis: the portfolio's links (learnt, newest first,
 * renamed, kept per portfolio, pruned after the retention), and the joins through the webhook
 * consumer: a username user's message, reply and marketing stop reach their phone's row,
 * service window and opt-outs, also when the link comes only after the event.
 */
const NUMBER = LEDGER_TEST_NUMBER;
/** Another number of the same (default) portfolio, and one of its own portfolio. */
const SAME_PORTFOLIO = '106540352242923';
const OTHER_PORTFOLIO = '106540352242924';
const USER = 'US.13491208655302741918';
const ID = 'users';
/** Meta's times are whole seconds, and the links keep them so (includes/compact-time.lua). */
const wholeSecond = (ms: number) => Math.floor(ms / 1000) * 1000;
/** Whole seconds as the packed values end in them: 4 bytes, big-endian. */
const seconds = (ms: number) => {
  const bytes = Buffer.alloc(4);
  bytes.writeUInt32BE(ms / 1000);
  return bytes;
};
/** A phone as `links` packs it (includes/packed-value.lua): tag 1, its digits as BCD (an odd count ends in F), the seconds. */
const packedPhone = (digits: string, ms: number) =>
  Buffer.concat([Buffer.from([1]), Buffer.from(digits.length % 2 === 1 ? `${digits}f` : digits, 'hex'), seconds(ms)]);

describe('user links of a portfolio (real Redis)', () => {
  let redis: Redis;
  let prefix: string;
  let links: RedisUserLinks;
  /** A link as the default portfolio's map holds it ("<phone> <ms>"), read by the product's own script. */
  /** Every value of a bucket map, as bytes. */
  const mapValues = async (map: string) => {
    const n = Number((await redis.hget(map, 'n')) ?? 1);
    const values: Buffer[] = [];
    for (let i = 0; i < n; i++) values.push(...(await redis.hvalsBuffer(`${map}:${i}`)));
    return values;
  };
  const storedLink = async (userId: string) => {
    const keys = userLinkKeys(prefix, 'default');
    return (await userLinkScripts(redis).cwReadUserLinks(keys.links, keys.users, 1, userId))[0];
  };

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('user-links');
    links = new RedisUserLinks(redis, prefix, new Map([[OTHER_PORTFOLIO, 'support']]), 86_400_000);
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('a link learnt on one number is known on every number of its portfolio, and on no other', async () => {
    const now = wholeSecond(Date.now());
    await links.learn([{ phoneNumberId: NUMBER, userId: USER, waId: '16505551234', at: now }]);
    expect(await links.phonesOf(SAME_PORTFOLIO, [USER, 'US.0'])).toEqual(['16505551234', undefined]);
    expect(await links.userIdsOf(SAME_PORTFOLIO, ['+16505551234'])).toEqual([USER]);
    expect(await links.phonesOf(OTHER_PORTFOLIO, [USER])).toEqual([undefined]);
    // Its keys are in the portfolio's own scope (one hash tag).
    expect(await storedLink(USER)).toBe(`16505551234 ${now}`);
    expect(await redis.keys(`${userLinkKeys(prefix, 'default').links}:map*`)).toHaveLength(2);
  });

  it('the newest link of a user ID wins, whatever the order they come in', async () => {
    const now = Date.now();
    await links.learn([{ phoneNumberId: NUMBER, userId: USER, waId: '16505550002', at: now }]);
    await links.learn([{ phoneNumberId: NUMBER, userId: USER, waId: '16505550001', at: now - 5000 }]);
    expect(await links.phonesOf(NUMBER, [USER])).toEqual(['16505550002']);
    await links.learn([
      { phoneNumberId: NUMBER, userId: USER, waId: '16505550003', at: now + 2000 },
      { phoneNumberId: NUMBER, userId: USER, waId: '16505550004', at: now + 1000 },
    ]);
    expect(await links.phonesOf(NUMBER, [USER])).toEqual(['16505550003']);
  });

  it('a link confirmed again is rewritten only when another phone or an hour newer (sent, delivered, read all carry it)', async () => {
    const now = wholeSecond(Date.now() - 3 * 3_600_000);
    const stored = async () => storedLink(USER);
    await links.learn([{ phoneNumberId: NUMBER, userId: USER, waId: '16505551234', at: now }]);
    await links.learn([{ phoneNumberId: NUMBER, userId: USER, waId: '16505551234', at: now + 2000 }]);
    expect(await stored()).toBe(`16505551234 ${now}`);
    await links.learn([{ phoneNumberId: NUMBER, userId: USER, waId: '16505551234', at: now + 3_600_000 }]);
    expect(await stored()).toBe(`16505551234 ${now + 3_600_000}`);
    await links.learn([{ phoneNumberId: NUMBER, userId: USER, waId: '16505559999', at: now + 3_601_000 }]);
    expect(await stored()).toBe(`16505559999 ${now + 3_601_000}`);
  });

  it('user_changed_user_id: the new ID takes the old one’s phone; the old ID keeps it for late events', async () => {
    const now = Date.now();
    await links.learn([{ phoneNumberId: NUMBER, userId: 'US.1', waId: '16505551234', at: now }]);
    await links.rename([{ phoneNumberId: SAME_PORTFOLIO, previous: 'US.1', userId: 'US.2', at: now + 1000 }]);
    expect(await links.phonesOf(NUMBER, ['US.1', 'US.2'])).toEqual(['16505551234', '16505551234']);
    expect(await links.userIdsOf(NUMBER, ['16505551234'])).toEqual(['US.2']);
  });

  it('links not seen for the retention are dropped; a phone whose user ID changed keeps the new one', async () => {
    const old = Date.now() - 2 * 86_400_000;
    // The sorted set of confirmations an older layout kept beside the links: dropped, the links' own times suffice.
    const seen = userLinkKeys(prefix, 'default').links.replace(/:links$/, ':seen');
    await redis.zadd(seen, old, 'US.0');
    await links.learn([{ phoneNumberId: NUMBER, userId: 'US.1', waId: '16505551234', at: old }]);
    // The walk moves by time (includes/walk-by-time.lua): a quarter of the retention later it has been round them all.
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() + 86_400_000 / 4 });
    try {
      await links.learn([{ phoneNumberId: NUMBER, userId: 'US.2', waId: '16505551234', at: Date.now() }]);
    } finally {
      vi.useRealTimers();
    }
    expect(await links.phonesOf(NUMBER, ['US.1', 'US.2'])).toEqual([undefined, '16505551234']);
    expect(await links.userIdsOf(NUMBER, ['16505551234'])).toEqual(['US.2']);
    expect(await redis.exists(seen)).toBe(0);
  });

  it('walks the links at a pace set by time: learns in a burst walk them once, the time after brings the next step', async () => {
    const day = 86_400_000;
    const user = (n: number) => `US.${String(n).padStart(20, '0')}`;
    // Enough fresh links for many buckets, learnt at once: the first learn walked none.
    const fresh = (n: number) => ({ phoneNumberId: NUMBER, userId: user(n), waId: `1650555${n}`, at: Date.now() });
    for (let n = 0; n < 1_000; n += 100) await links.learn(Array.from({ length: 100 }, (_, i) => fresh(n + i)));
    await links.learn([{ phoneNumberId: NUMBER, userId: 'US.old', waId: '16505559999', at: Date.now() - 2 * day }]);
    expect(await links.phonesOf(NUMBER, ['US.old'])).toEqual(['16505559999']);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      // A quarter of the retention walks all of them (4 walks a retention): the stale link goes, the fresh ones stay.
      for (let step = 0; step < 8 && (await links.phonesOf(NUMBER, ['US.old']))[0] !== undefined; step++) {
        vi.setSystemTime(Date.now() + day / 16);
        await links.learn([{ phoneNumberId: NUMBER, userId: user(0), waId: '16505550', at: Date.now() - 2 * 3_600_000 }]);
      }
      expect(await links.phonesOf(NUMBER, ['US.old'])).toEqual([undefined]);
      // The fresh links stay, in buckets Redis keeps small (listpacks).
      const map = `${userLinkKeys(prefix, 'default').links}:map`;
      expect(await redis.hget(map, 'count')).toBe('1000');
      const buckets = await redis.keys(`${map}:*`);
      expect(buckets.length).toBeGreaterThan(10);
      for (const bucket of buckets) expect(await redis.object('ENCODING', bucket)).toBe('listpack');
      expect((await links.phonesOf(NUMBER, [user(0), user(999)])).every((phone) => phone !== undefined)).toBe(true);
    } finally {
      vi.useRealTimers();
    }
  });

  it('links an older version kept in one hash are read, moved to the maps when confirmed again, and walked out', async () => {
    const day = 86_400_000;
    const keys = userLinkKeys(prefix, 'default');
    await redis.hset(keys.links, 'US.kept', `16505550001 ${Date.now() - 2 * 3_600_000}`, 'US.stale', `16505550002 ${Date.now() - 2 * day}`);
    await redis.hset(keys.users, '16505550001', `US.kept ${Date.now() - 2 * 3_600_000}`, '16505550002', `US.stale ${Date.now() - 2 * day}`);
    expect(await links.phonesOf(NUMBER, ['US.kept', 'US.stale'])).toEqual(['16505550001', '16505550002']);
    expect(await links.userIdsOf(NUMBER, ['16505550002'])).toEqual(['US.stale']);
    // Confirmed an hour later: the link moves to the map, out of the one hash.
    await links.learn([{ phoneNumberId: NUMBER, userId: 'US.kept', waId: '16505550001', at: Date.now() }]);
    expect(await redis.hexists(keys.links, 'US.kept')).toBe(0);
    expect(await storedLink('US.kept')).toMatch(/^16505550001 \d+$/);
    vi.useFakeTimers({ toFake: ['Date'], now: Date.now() });
    try {
      for (let step = 0; step < 8 && (await links.phonesOf(NUMBER, ['US.stale']))[0] !== undefined; step++) {
        vi.setSystemTime(Date.now() + day / 16);
        await links.learn([{ phoneNumberId: NUMBER, userId: 'US.other', waId: '16505550003', at: Date.now() - step }]);
      }
    } finally {
      vi.useRealTimers();
    }
    expect(await links.phonesOf(NUMBER, ['US.kept', 'US.stale'])).toEqual(['16505550001', undefined]);
    expect(await links.userIdsOf(NUMBER, ['16505550001', '16505550002'])).toEqual(['US.kept', undefined]);
  });

  it('keeps a user ID in `links` as a 12-byte digest; an entry keyed by the ID is read, then replaced', async () => {
    const keys = userLinkKeys(prefix, 'default');
    const now = wholeSecond(Date.now());
    // What an older version wrote in the maps: the user ID as the field, decimal ms (one bucket: n 1).
    await redis.hset(`${keys.links}:map`, 'n', 1, 'count', 1);
    await redis.hset(`${keys.links}:map:0`, 'US.mapped', `16505550001 ${now - 2 * 3_600_000}`);
    await redis.hset(`${keys.users}:map`, 'n', 1, 'count', 1);
    await redis.hset(`${keys.users}:map:0`, '16505550001', `US.mapped ${now - 2 * 3_600_000}`);
    expect(await links.phonesOf(NUMBER, ['US.mapped'])).toEqual(['16505550001']);
    expect(await links.userIdsOf(NUMBER, ['16505550001'])).toEqual(['US.mapped']);

    await links.learn([{ phoneNumberId: NUMBER, userId: 'US.mapped', waId: '16505550001', at: now }]);
    const fields = await redis.hkeysBuffer(`${keys.links}:map:0`);
    expect(fields).toHaveLength(1);
    expect(fields[0]?.length).toBe(12);
    expect(fields[0]?.[0]).toBe(0);
    // The phone packs (its digits as BCD, the seconds in 4 bytes); a user ID of letters stays text, seconds in base 36.
    expect(await redis.hvalsBuffer(`${keys.links}:map:0`)).toEqual([packedPhone('16505550001', now)]);
    expect(await redis.hget(`${keys.users}:map:0`, '16505550001')).toBe(`US.mapped ${(now / 1000).toString(36)}`);
    expect(await redis.hget(`${keys.links}:map`, 'count')).toBe('1');
    expect(await storedLink('US.mapped')).toBe(`16505550001 ${now}`);

    // The walk finds the digest's user in `users` and drops both once the link is past the retention.
    vi.useFakeTimers({ toFake: ['Date'], now: now + 2 * 86_400_000 });
    try {
      for (let step = 0; step < 8 && (await links.phonesOf(NUMBER, ['US.mapped']))[0] !== undefined; step++) {
        vi.setSystemTime(Date.now() + 86_400_000 / 16);
        await links.learn([{ phoneNumberId: NUMBER, userId: 'US.other', waId: '16505550003', at: Date.now() - step }]);
      }
    } finally {
      vi.useRealTimers();
    }
    expect(await links.phonesOf(NUMBER, ['US.mapped'])).toEqual([undefined]);
    expect(await links.userIdsOf(NUMBER, ['16505550001', '16505550003'])).toEqual([undefined, 'US.other']);
  });

  it("packs phones and user IDs of Meta's form as bytes, exactly; other IDs stay text; an older version's text is read", async () => {
    const keys = userLinkKeys(prefix, 'default');
    const now = wholeSecond(Date.now());
    const users = ['US.13491208655302741918', 'DE.0081441810020805333', 'BR.7', 'US.ENT.11815799212886844830', 'US.abc123'];
    const phones = ['16505551234', '4915110000153', '0044207946', '5511987654321', '9'];
    await links.learn(users.map((userId, i) => ({ phoneNumberId: NUMBER, userId, waId: phones[i] ?? '', at: now - i * 1000 })));
    expect(await links.phonesOf(NUMBER, users)).toEqual(phones);
    expect(
      await links.userIdsOf(
        NUMBER,
        phones.map((p) => `+${p}`),
      ),
    ).toEqual(users);
    for (const [i, userId] of users.entries()) expect(await storedLink(userId)).toBe(`${phones[i]} ${now - i * 1000}`);
    const linkValues = await mapValues(`${keys.links}:map`);
    for (const [i, phone] of phones.entries()) expect(linkValues).toContainEqual(packedPhone(phone, now - i * 1000));
    const userValues = await mapValues(`${keys.users}:map`);
    expect(userValues).toContainEqual(
      Buffer.concat([Buffer.from([2]), Buffer.from('US'), Buffer.from('13491208655302741918', 'hex'), seconds(now)]),
    );
    expect(userValues).toContainEqual(Buffer.from(`US.abc123 ${((now - 4000) / 1000).toString(36)}`));
    expect(userValues).toContainEqual(Buffer.from(`US.ENT.11815799212886844830 ${((now - 3000) / 1000).toString(36)}`));

    // A link written by the version before: text, seconds in base 36 (five links: the map has one bucket yet).
    const field = Buffer.concat([Buffer.from([0]), createHash('sha1').update('US.111').digest().subarray(0, 11)]);
    expect(Number((await redis.hget(`${keys.links}:map`, 'n')) ?? 1)).toBe(1);
    await redis.hset(`${keys.links}:map:0`, field, `16505550009 ${(now / 1000).toString(36)}`);
    expect(await storedLink('US.111')).toBe(`16505550009 ${now}`);
  });

  it('parked events are released once, and only what was read is removed', async () => {
    const event = { phoneNumberId: NUMBER, userId: USER, value: 'stop' as const, at: Date.now() };
    await links.park([{ kind: 'preference', event }]);
    const released = await links.release([{ phoneNumberId: SAME_PORTFOLIO, userId: USER }]);
    expect(released.events).toEqual([{ kind: 'preference', event }]);
    // Parked meanwhile: stays for the next release.
    await links.park([{ kind: 'preference', event: { ...event, value: 'resume' } }]);
    await released.done(new Set([USER]));
    const again = await links.release([{ phoneNumberId: NUMBER, userId: USER }]);
    expect(again.events.map((e) => e.kind === 'preference' && e.event.value)).toEqual(['resume']);
    await again.done(new Set([USER]));
    expect((await links.release([{ phoneNumberId: NUMBER, userId: USER }])).events).toEqual([]);
    expect(await redis.exists(userLinkKeys(prefix, 'default').pendingOf(USER))).toBe(0);
  });
});

describe('joinUsers on the real store', () => {
  let redis: Redis;
  let prefix: string;
  let links: RedisUserLinks;
  const at = Date.now();
  const stop = (userId: string) => ({ phoneNumberId: NUMBER, userId, value: 'stop' as const, at });
  const batch = (preferences: ReturnType<typeof stop>[], statuses: StatusEvent[] = []) => ({
    statuses,
    inbound: [],
    preferences,
    userIdChanges: [],
  });

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('user-joins-store');
    links = new RedisUserLinks(redis, prefix);
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('a link another consumer learns between the lookup and the park still releases the event in the same batch', async () => {
    // Another consumer's learn lands right before this one parks.
    const racing: UserLinkStore = {
      learn: (l) => links.learn(l),
      rename: (c) => links.rename(c),
      phonesOf: (n, ids) => links.phonesOf(n, ids),
      userIdsOf: (n, phones) => links.userIdsOf(n, phones),
      release: (keys) => links.release(keys),
      park: async (events: readonly PendingUserEvent[]) => {
        await links.learn([{ phoneNumberId: SAME_PORTFOLIO, userId: 'US.1', waId: '16505551234', at }]);
        await links.park(events);
      },
    };
    const joined = await joinUsers(racing, batch([stop('US.1')]));
    expect(joined.preferences.map((p) => p.waId)).toEqual(['16505551234']);
    expect(joined.unlinked).toBe(0);
    await joined.done();
    expect((await links.release([{ phoneNumberId: NUMBER, userId: 'US.1' }])).events).toEqual([]);
  });

  it("a user whose link is still unknown keeps their events; another's are applied and removed", async () => {
    let joined = await joinUsers(links, batch([stop('US.1'), stop('US.2')]));
    expect(joined).toMatchObject({ preferences: [], unlinked: 2, linked: 0 });
    await joined.done();
    const status: StatusEvent = { phoneNumberId: NUMBER, wamid: 'w', kind: 'read', at, recipientId: '16505550002', userId: 'US.2' };
    joined = await joinUsers(links, batch([stop('US.1')], [status]));
    expect(joined.preferences.map((p) => p.waId)).toEqual(['16505550002']);
    expect(joined).toMatchObject({ unlinked: 1, linked: 1 });
    await joined.done();
    const left = await links.release([
      { phoneNumberId: NUMBER, userId: 'US.1' },
      { phoneNumberId: NUMBER, userId: 'US.2' },
    ]);
    expect(left.events.map((e) => e.event.userId)).toEqual(['US.1', 'US.1']);
  });
});

describe('user_id-only webhooks joined to their phone (real Redis, webhook consumer)', () => {
  let redis: Redis;
  let reader: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  let consumer: WebhookConsumer;
  const phone = phoneNumber(1);
  const digits = phone.slice(1);
  const seconds = () => String(Math.floor(Date.now() / 1000));

  beforeEach(async () => {
    redis = testRedis();
    reader = testRedis();
    prefix = freshPrefix('user-joins');
    ledger = new RedisLedger(redis, prefix);
    consumer = new WebhookConsumer({ redis: reader, prefix, ledger, logger: silentLogger(), consumer: 'test', blockMs: 50 });
    // Row 1 sent to `phone` as message w1.
    await ledger.createCampaign(ledgerTestDefinition(ID));
    await ledger.recordIngested(ID, NUMBER, [queuedRow(1), queuedRow(2)]);
    await ledger.finishIngest(ID);
    await sendAllAsW(ledger, NUMBER);
  });

  afterEach(async () => {
    await removePrefix(redis, prefix);
    await reader.quit();
    await redis.quit();
  });

  async function post(field: string, value: object): Promise<void> {
    const body = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '1',
          changes: [
            { field, value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '1', phone_number_id: NUMBER }, ...value } },
          ],
        },
      ],
    });
    await redis.xadd(webhookKeys(prefix).inbox, '*', 'body', body, 'at', Date.now());
    while ((await consumer.processOnce()) === 0);
  }
  const delivered = (userId = USER) => ({
    statuses: [
      {
        id: 'w1',
        status: 'delivered',
        timestamp: seconds(),
        recipient_id: digits,
        recipient_user_id: userId,
        contacts: [{ wa_id: digits, user_id: userId }],
      },
    ],
  });
  const stopByUserId = (userId = USER) => ({
    contacts: [{ profile: { name: 'Ana' }, user_id: userId }],
    user_preferences: [{ user_id: userId, value: 'stop', category: 'marketing_messages', timestamp: Number(seconds()) }],
  });
  const stats = async () => redis.hgetall(webhookKeys(prefix).stats);

  it('a status links the user; their user_id-only reply answers the row and opens the service window on their phone', async () => {
    await post('messages', delivered());
    expect(await ledger.serviceWindowsOpen(NUMBER, [digits])).toEqual([false]);
    await post('messages', {
      contacts: [{ profile: { name: 'Ana', username: '@ana' }, user_id: USER }],
      messages: [
        {
          from_user_id: USER,
          id: 'in1',
          timestamp: seconds(),
          type: 'button',
          button: { payload: 'YES', text: 'Yes' },
          context: { id: 'w1' },
        },
      ],
    });
    expect(await ledger.serviceWindowsOpen(NUMBER, [digits])).toEqual([true]);
    const rows = [];
    for await (const page of ledger.rows(ID)) rows.push(...page);
    expect(rows.find((r) => r.row === 1)?.reply).toBe('YES');
    expect(await stats()).toMatchObject({ inbound: '1', replies: '1' });
    expect((await stats()).malformed).toBeUndefined();
  });

  it('a user_id-only stop is an opt-out of their phone', async () => {
    await post('messages', delivered());
    await post('user_preferences', stopByUserId());
    expect([...(await ledger.optOuts(NUMBER)).keys()]).toEqual([phone]);
  });

  it('a stop whose user ID has no link yet is kept (unlinked, not malformed) and applied when a status links it', async () => {
    await post('user_preferences', stopByUserId());
    expect(await stats()).toMatchObject({ unlinked: '1' });
    expect((await stats()).malformed).toBeUndefined();
    expect((await ledger.optOuts(NUMBER)).size).toBe(0);
    await post('messages', delivered());
    expect([...(await ledger.optOuts(NUMBER)).keys()]).toEqual([phone]);
    expect(await stats()).toMatchObject({ linked: '1', preferences: '1' });
  });

  it('after user_changed_user_id, a message with the new ID only opens the window of the same phone', async () => {
    await post('messages', delivered('US.1'));
    await post('messages', {
      messages: [
        {
          id: 's1',
          timestamp: seconds(),
          type: 'system',
          system: { type: 'user_changed_user_id', body: 'User Ana changed from US.1 to US.2', user_id: 'US.2' },
        },
      ],
    });
    expect(await ledger.serviceWindowsOpen(NUMBER, [digits])).toEqual([false]);
    await post('messages', {
      messages: [{ from_user_id: 'US.2', id: 'in2', timestamp: seconds(), type: 'text', text: { body: 'hello' } }],
    });
    expect(await ledger.serviceWindowsOpen(NUMBER, [digits])).toEqual([true]);
    expect(await stats()).toMatchObject({ userIdChanges: '1', inbound: '1' });
  });

  it('a failed status teaches no link: its user stays unknown', async () => {
    await post('messages', {
      statuses: [{ id: 'w2', status: 'failed', timestamp: seconds(), recipient_id: phoneNumber(2).slice(1), errors: [{ code: 131026 }] }],
    });
    await post('user_preferences', stopByUserId('US.77'));
    expect(await stats()).toMatchObject({ unlinked: '1', applied: '1' });
    expect((await ledger.optOuts(NUMBER)).size).toBe(0);
  });
});
