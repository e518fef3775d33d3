import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { Redis } from 'ioredis';
import { authenticate } from '../../src/http/api-tokens.js';
import { isAppError } from '../../src/errors/app-error.js';
import { LAST_USE_RESOLUTION_MS, RedisApiTokens, apiTokensKey } from '../../src/redis/access/redis-api-tokens.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

const DAY = 86_400_000;

/** The token store against a real Redis: what `campaign tokens` writes is what the API's authenticate reads. */
describe('API tokens in Redis', () => {
  let redis: Redis;
  let prefix: string;
  let now: number;
  let store: RedisApiTokens;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('api-tokens');
    now = Date.UTC(2026, 10, 26, 9, 0, 0);
    store = new RedisApiTokens(redis, prefix, () => now);
  });
  afterEach(async () => {
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('creates a token that authenticates with its name and scope, and stores only its hash', async () => {
    const created = await store.create('crm', 'send', 90 * DAY);
    const token = created.token.reveal();
    expect(created).toMatchObject({ name: 'crm', scope: 'send', createdAt: now, expiresAt: now + 90 * DAY });
    expect(await authenticate(`Bearer ${token}`, store, now)).toStrictEqual({ name: 'crm', scope: 'send' });
    const stored = JSON.stringify(await redis.hgetall(apiTokensKey(prefix)));
    expect(stored).not.toContain(token);
    expect(stored).not.toContain(token.slice(4));
  });

  it('refuses a second token of the same name, and keeps the first working', async () => {
    const first = (await store.create('crm', 'read')).token.reveal();
    const error = await store.create('crm', 'admin').catch((e: unknown) => e);
    expect(isAppError(error, 'API_TOKEN_NAME_TAKEN')).toBe(true);
    expect(await authenticate(`Bearer ${first}`, store, now)).toStrictEqual({ name: 'crm', scope: 'read' });
    expect((await store.list()).map((t) => [t.name, t.scope])).toStrictEqual([['crm', 'read']]);
  });

  it('lists name, scope, created, expires and last use, oldest first, without the hash', async () => {
    const crm = (await store.create('crm', 'send', DAY)).token.reveal();
    now += 1000;
    await store.create('ops', 'admin');
    now += 1000;
    await authenticate(`Bearer ${crm}`, store, now);
    const list = await store.list();
    expect(list).toStrictEqual([
      { name: 'crm', scope: 'send', createdAt: now - 2000, expiresAt: now - 2000 + DAY, lastUsedAt: now },
      { name: 'ops', scope: 'admin', createdAt: now - 1000, expiresAt: null, lastUsedAt: null },
    ]);
  });

  it('revokes by name: the token is refused after, and an unknown name is API_TOKEN_NOT_FOUND', async () => {
    const token = (await store.create('crm', 'send')).token.reveal();
    await store.revoke('crm');
    expect(await authenticate(`Bearer ${token}`, store, now)).toMatchObject({ status: 401, code: 'API_TOKEN_INVALID' });
    expect(await store.list()).toStrictEqual([]);
    expect(await redis.hlen(apiTokensKey(prefix))).toBe(0);
    const error = await store.revoke('crm').catch((e: unknown) => e);
    expect(isAppError(error, 'API_TOKEN_NOT_FOUND')).toBe(true);
  });

  it('a name revoked and created again gets a new token; the old one stays refused', async () => {
    const old = (await store.create('crm', 'send')).token.reveal();
    await store.revoke('crm');
    const fresh = (await store.create('crm', 'read')).token.reveal();
    expect(await authenticate(`Bearer ${old}`, store, now)).toMatchObject({ code: 'API_TOKEN_INVALID' });
    expect(await authenticate(`Bearer ${fresh}`, store, now)).toStrictEqual({ name: 'crm', scope: 'read' });
  });

  it('expires: accepted just before, refused from the expiry on', async () => {
    const token = (await store.create('short', 'read', 60_000)).token.reveal();
    expect(await authenticate(`Bearer ${token}`, store, now + 59_999)).toStrictEqual({ name: 'short', scope: 'read' });
    expect(await authenticate(`Bearer ${token}`, store, now + 60_000)).toMatchObject({ status: 401, code: 'API_TOKEN_EXPIRED' });
  });

  it('writes the last use at most once a minute per token', async () => {
    const token = (await store.create('crm', 'send')).token.reveal();
    const lastUse = async () => (await store.list())[0]?.lastUsedAt;
    await authenticate(`Bearer ${token}`, store, now);
    expect(await lastUse()).toBe(now);
    await authenticate(`Bearer ${token}`, store, now + LAST_USE_RESOLUTION_MS - 1);
    expect(await lastUse()).toBe(now);
    await authenticate(`Bearer ${token}`, store, now + LAST_USE_RESOLUTION_MS);
    expect(await lastUse()).toBe(now + LAST_USE_RESOLUTION_MS);
  });

  it('a use racing the revocation leaves nothing behind', async () => {
    await store.create('crm', 'send');
    const other = new RedisApiTokens(redis, prefix, () => now);
    await other.revoke('crm');
    await store.used('crm', now);
    expect(await redis.hlen(apiTokensKey(prefix))).toBe(0);
  });

  it('a damaged record refuses its own token, leaves the others working, and can be revoked', async () => {
    const broken = (await store.create('broken', 'admin')).token.reveal();
    const fine = (await store.create('fine', 'read')).token.reveal();
    await redis.hset(apiTokensKey(prefix), 'name:broken', '{not json');
    expect(await authenticate(`Bearer ${broken}`, store, now)).toMatchObject({ status: 401, code: 'API_TOKEN_INVALID' });
    expect(await authenticate(`Bearer ${fine}`, store, now)).toStrictEqual({ name: 'fine', scope: 'read' });
    expect((await store.list()).map((t) => t.name)).toStrictEqual(['fine']);
    await store.revoke('broken');
    const again = (await store.create('broken', 'send')).token.reveal();
    expect(await authenticate(`Bearer ${again}`, store, now)).toStrictEqual({ name: 'broken', scope: 'send' });
    expect(await authenticate(`Bearer ${broken}`, store, now)).toMatchObject({ code: 'API_TOKEN_INVALID' });
  });
});
