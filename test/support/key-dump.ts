import type { Cluster } from 'ioredis';
import type { RedisClient } from '../../src/redis/key-scope.js';

/** One key under a prefix and its value, read back in a form a test can compare. */
export interface DumpedKey {
  key: string;
  type: 'string' | 'hash' | 'list' | 'set' | 'zset' | 'stream';
  value: unknown;
}

/** Every key under a prefix (on a single Redis) with its value, sorted by key. */
export async function dumpKeys(redis: RedisClient, prefix: string): Promise<DumpedKey[]> {
  const keys = await scanKeys(redis, `${prefix}:*`);
  const dumped: DumpedKey[] = [];
  for (const key of keys.sort()) {
    const type = (await redis.type(key)) as DumpedKey['type'];
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
    dumped.push({ key, type, value });
  }
  return dumped;
}

async function scanKeys(redis: RedisClient, pattern: string): Promise<string[]> {
  const keys: string[] = [];
  let cursor = '0';
  do {
    const [next, found] = await (redis as Exclude<RedisClient, Cluster>).scan(cursor, 'MATCH', pattern, 'COUNT', 1000);
    cursor = next;
    keys.push(...found);
  } while (cursor !== '0');
  return keys;
}
