import type { RedisClient } from './key-scope.js';
import { phoneNumbersKey } from './ledger-keys.js';

/**
 * Where a business portfolio's own keys live (its user links, its messaging-limit count, its
 * opt-outs): one hash tag per portfolio, so on Redis Cluster they share a slot of their own,
 * apart from every number's.
 */
export function portfolioScope(prefix: string, portfolio: string): string {
  return `${prefix}:{${prefix}:portfolio:${portfolio}}`;
}

/** Every phone number that has had a campaign. */
export function knownPhoneNumbers(redis: RedisClient, prefix: string): Promise<string[]> {
  return redis.smembers(phoneNumbersKey(prefix));
}
