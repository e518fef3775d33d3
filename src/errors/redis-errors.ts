/**
 * Redis's own refusals, by the code its error reply starts with (the protocol's convention:
 * `OOM command not allowed …`), never by the rest of the text; and Redis not answering at all.
 */
import type { RedisClient } from '../redis/key-scope.js';
import { AppError } from './app-error.js';

/** Redis refused a write because its maxmemory is reached and its policy evicts nothing (noeviction). */
export function isRedisOutOfMemory(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError' && /^OOM\b/.test(error.message);
}

/**
 * A cluster's answer that the command did not run there and belongs elsewhere or later (MOVED, ASK, TRYAGAIN,
 * CLUSTERDOWN). The client follows these itself, except in a pipeline that also holds a command that did run.
 */
export function isClusterRedirection(error: unknown): boolean {
  return error instanceof Error && error.name === 'ReplyError' && /^(MOVED|ASK|TRYAGAIN|CLUSTERDOWN)\b/.test(error.message);
}

/** What to do about it, for every command's message. */
export const REDIS_FULL_ADVICE =
  'Free memory in Redis (`campaign purge` finished campaigns, or a lower RETENTION_DAYS) or raise its maxmemory';

/** How long a PING may take when a failure is examined: a Redis that answers does so in a millisecond. */
const PING_WAIT_MS = 500;

/** Whether Redis answers now: the connection is up and a PING comes back within `ms`. */
export async function redisAnswers(redis: RedisClient, ms = PING_WAIT_MS): Promise<boolean> {
  if (redis.status !== 'ready') return false;
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<false>((resolve) => (timer = setTimeout(() => resolve(false), ms)));
  const ping = redis.ping().then(
    () => true,
    () => false,
  );
  try {
    return await Promise.race([ping, late]);
  } finally {
    clearTimeout(timer);
  }
}

/**
 * A failure that is not the program's own (no AppError) as REDIS_UNAVAILABLE when Redis does
 * not answer (the connection was lost, never made, or a command timed out); undefined when
 * Redis answers, so the failure is something else. ioredis's connection errors carry no code,
 * so the connection is asked, never the error's text.
 */
export async function redisUnavailableError(error: unknown, redis: RedisClient): Promise<AppError | undefined> {
  if (error instanceof AppError || (error instanceof Error && error.name === 'ReplyError')) return undefined;
  if (await redisAnswers(redis)) return undefined;
  return new AppError('REDIS_UNAVAILABLE', 'Redis is not answering: this request cannot be served now; retry later', { cause: error });
}

/**
 * A write that must reach the replicas (REDIS_WAIT_REPLICAS) found its connection changed under it
 * `attempts` times in a row: Redis keeps failing over or dropping the connection. Nothing is known
 * to be lost (each attempt writes again what it needs), but this call cannot say its writes are safe.
 */
export function connectionKeptChangingError(what: string, attempts: number): AppError {
  return new AppError(
    'REDIS_UNAVAILABLE',
    `${what}: the connection to Redis changed under ${attempts} writes in a row (failovers or dropped connections), ` +
      'so its wait for the replicas could not vouch for them; retry once Redis is stable',
  );
}
