import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';
import { inject } from 'vitest';

export function redisUrl(): string {
  return inject('redisUrl');
}

/** A queue/ledger prefix no other test uses, so tests can share one Redis. */
export function freshPrefix(label: string): string {
  return `test-${label}-${randomBytes(4).toString('hex')}`;
}

/** A connection as the worker uses it (BullMQ wants maxRetriesPerRequest: null). */
export function testRedis(): Redis {
  return new Redis(redisUrl(), { maxRetriesPerRequest: null });
}

/** Deletes every key under the prefix (BullMQ's and the ledger's). */
export async function removePrefix(redis: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    if (keys.length > 0) await redis.del(...keys);
  } while (cursor !== '0');
}
