import { randomBytes } from 'node:crypto';
import { Redis } from 'ioredis';

/** Where Redis is: the same variable and default the product reads. */
export const REDIS_URL = process.env.REDIS_URL ?? 'redis://127.0.0.1:6379';

/** Prefixes this benchmark created and has not deleted yet, so an abort can still clean up. */
const pending = new Set<string>();

/**
 * A fresh QUEUE_PREFIX per run: no run sees another's jobs, ledger or BullMQ metadata, and
 * other people's keys on the same Redis are never touched. Letters, digits, - and _ only
 * (the product's config rule).
 */
export function freshPrefix(tag: string): string {
  const prefix = `bench-${tag}-${randomBytes(3).toString('hex')}`;
  pending.add(prefix);
  return prefix;
}

export function openRedis(): Redis {
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 20 });
}

/** Deletes `${prefix}:*` with SCAN + UNLINK (never KEYS or FLUSHDB: the Redis is shared). */
export async function deletePrefix(redis: Redis, prefix: string): Promise<number> {
  let deleted = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 5000);
    cursor = next;
    if (keys.length > 0) deleted += await redis.unlink(...keys);
  } while (cursor !== '0');
  pending.delete(prefix);
  return deleted;
}

export async function deletePendingPrefixes(redis: Redis): Promise<void> {
  for (const prefix of [...pending]) await deletePrefix(redis, prefix);
}

/** The redis-server PID, to read its CPU time from /proc (evidence for where the time goes). */
export async function redisServerPid(redis: Redis): Promise<number | undefined> {
  const info = await redis.info('server');
  const match = /^process_id:(\d+)/m.exec(info);
  return match?.[1] === undefined ? undefined : Number(match[1]);
}

export async function redisVersion(redis: Redis): Promise<string> {
  const info = await redis.info('server');
  return /^redis_version:(\S+)/m.exec(info)?.[1] ?? 'unknown';
}
