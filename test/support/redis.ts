import { randomBytes } from 'node:crypto';
import { Cluster, Redis } from 'ioredis';
import type { RedisClient } from '../../src/redis/key-scope.js';
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

/** Deletes every key under the prefix (BullMQ's and the ledger's); on a cluster, on every master. */
export async function removePrefix(redis: RedisClient, prefix: string): Promise<void> {
  const servers = redis instanceof Cluster ? redis.nodes('master') : [redis];
  for (const server of servers) {
    let cursor = '0';
    do {
      const [next, keys] = await server.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
      cursor = next;
      // One key per command: on a cluster a multi-key DEL must stay in one slot.
      if (keys.length > 0) await Promise.all(keys.map((key) => server.del(key)));
    } while (cursor !== '0');
  }
}
