import type { RedisClient } from '../../src/redis/key-scope.js';
import { dashboardLoginKeys } from '../../src/redis/service-keys.js';
import { removePrefix } from './redis.js';

/**
 * Forgets the dashboard's failed-login counts under `prefix` (not its refusal totals): a test that sends wrong
 * passwords on purpose, more than the throttle allows in a minute, starts each round unthrottled.
 */
export async function forgetLoginFailures(redis: RedisClient, prefix: string): Promise<void> {
  // The counts' keys are the refusals key's siblings: `<base>:address:…` and `<base>:user:…`.
  const base = dashboardLoginKeys(prefix).refusals.replace(/:refusals$/, '');
  await removePrefix(redis, `${base}:address`);
  await removePrefix(redis, `${base}:user`);
}
