import { messagingLimitText, type MessagingLimit } from '../config/number-settings.js';
import { REACH_WINDOW_MS } from '../campaigns/send/messaging-reach.js';
import type { RedisClient } from './key-scope.js';
import { messagingLimitKey, reachKey } from './ledger-keys.js';

/**
 * For `campaign send`'s plan: the number's messaging limit as its workers last learnt it, and
 * who it reached in the last 24 h (the feed script's reach set), by Redis's clock.
 */
export async function readMessagingReach(
  redis: RedisClient,
  prefix: string,
  phoneNumberId: string,
): Promise<{ storedLimit: MessagingLimit | undefined; reached: number; oldestReachedAt: number | undefined; now: number }> {
  const [seconds, micros] = await redis.time();
  const now = Number(seconds) * 1000 + Math.floor(Number(micros) / 1000);
  const since = now - REACH_WINDOW_MS;
  const key = reachKey(prefix, phoneNumberId);
  const [stored, reached, oldest] = await Promise.all([
    redis.get(messagingLimitKey(prefix, phoneNumberId)),
    redis.zcount(key, `(${since}`, '+inf'),
    redis.zrangebyscore(key, `(${since}`, '+inf', 'WITHSCORES', 'LIMIT', 0, 1),
  ]);
  return {
    storedLimit: stored === null ? undefined : messagingLimitText(stored),
    reached,
    oldestReachedAt: oldest[1] === undefined ? undefined : Number(oldest[1]),
    now,
  };
}
