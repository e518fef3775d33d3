import { portfolioScope } from './portfolio-keys.js';

/**
 * A business portfolio's messaging-limit keys, all in its own scope (one Redis Cluster slot):
 * the users it reached in the moving 24 h (wa_id → ms last fed), the leases of places its
 * numbers' feeders hold (lease ID → places; lease ID → ms it expires), and its limit as a
 * worker or a webhook last learnt it ('2000' or 'unlimited'). src/redis/lua/reach-reserve.lua
 * and reach-commit.lua keep the count.
 */
export function portfolioLimitKeys(
  prefix: string,
  portfolio: string,
): { reach: string; leases: string; leaseExpiry: string; limit: string } {
  const scope = portfolioScope(prefix, portfolio);
  return { reach: `${scope}:reach`, leases: `${scope}:leases`, leaseExpiry: `${scope}:lease-expiry`, limit: `${scope}:messaging-limit` };
}
