import type { Redis } from 'ioredis';
import { scanKeys } from '../../src/redis/key-migration.js';
import type { RedisClient } from '../../src/redis/key-scope.js';

/**
 * Every key under a prefix as JSON, and back: how test/fixtures/layout-v1 keeps what an
 * earlier version of the product left in Redis (its key layout), for the migration test to
 * load under a fresh prefix. The prefix is written as `<prefix>` so it can be replaced.
 */
export interface DumpedKey {
  key: string;
  type: 'string' | 'hash' | 'list' | 'set' | 'zset' | 'stream';
  /** ms left to live; -1 = none. */
  pttl: number;
  value: unknown;
}

const PLACEHOLDER = '<prefix>';

export async function dumpKeys(redis: RedisClient, prefix: string): Promise<DumpedKey[]> {
  const keys = await scanKeys(redis, `${prefix}:*`);
  const dumped: DumpedKey[] = [];
  for (const key of keys.sort()) {
    const type = (await redis.type(key)) as DumpedKey['type'];
    const pttl = await redis.pttl(key);
    let value: unknown;
    if (type === 'string') value = await redis.get(key);
    else if (type === 'hash') value = await redis.hgetall(key);
    else if (type === 'list') value = await redis.lrange(key, 0, -1);
    else if (type === 'set') value = (await redis.smembers(key)).sort();
    else if (type === 'zset') value = await redis.zrange(key, 0, -1, 'WITHSCORES');
    else if (type === 'stream') {
      const groups = (await redis.xinfo('GROUPS', key)) as unknown[][];
      value = { entries: await redis.xrange(key, '-', '+'), groups: groups.map((g) => String(g[1])) };
    } else throw new Error(`${key}: cannot dump a ${String(type)}`);
    dumped.push({ key: PLACEHOLDER + key.slice(prefix.length), type, pttl, value: replaceDeep(value, prefix, PLACEHOLDER) });
  }
  return dumped;
}

export async function restoreKeys(redis: Redis, dumped: readonly DumpedKey[], prefix: string): Promise<void> {
  for (const entry of dumped) {
    const key = prefix + entry.key.slice(PLACEHOLDER.length);
    const value = replaceDeep(entry.value, PLACEHOLDER, prefix);
    if (entry.type === 'string') await redis.set(key, value as string);
    else if (entry.type === 'hash') await redis.hset(key, value as Record<string, string>);
    else if (entry.type === 'list') await redis.rpush(key, ...(value as string[]));
    else if (entry.type === 'set') await redis.sadd(key, ...(value as string[]));
    else if (entry.type === 'zset') {
      const flat = value as string[];
      const pairs: string[] = [];
      for (let i = 0; i < flat.length; i += 2) pairs.push(flat[i + 1] ?? '0', flat[i] ?? '');
      await redis.zadd(key, ...pairs);
    } else {
      const { entries, groups } = value as { entries: [string, string[]][]; groups: string[] };
      for (const [, fields] of entries) await redis.xadd(key, '*', ...fields);
      for (const group of groups) await redis.xgroup('CREATE', key, group, '0', 'MKSTREAM');
    }
    if (entry.pttl > 0) await redis.pexpire(key, entry.pttl);
  }
}

function replaceDeep(value: unknown, from: string, to: string): unknown {
  if (typeof value === 'string') return value.split(from).join(to);
  if (Array.isArray(value)) return value.map((v) => replaceDeep(v, from, to));
  if (value !== null && typeof value === 'object')
    return Object.fromEntries(Object.entries(value).map(([k, v]) => [replaceDeep(k, from, to), replaceDeep(v, from, to)]));
  return value;
}
