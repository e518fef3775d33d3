import { numberScope } from './key-scope.js';

// Keys beside the ledger's and the metrics': named here so nothing outside src/redis builds one.

/** BullMQ's prefix for a number's send queue: the number's scope, so its keys share the slot of the number's ledger keys. */
export function sendQueuePrefix(prefix: string, phoneNumberId: string): string {
  return numberScope(prefix, phoneNumberId);
}

/**
 * The pacer's keys of a number (src/redis/pacer/redis-send-pacer.ts): its next slot, and the sends of its last
 * second. In the number's scope: both scripts stay in its slot.
 */
export function pacerKeys(prefix: string, phoneNumberId: string): { slot: string; sent: string } {
  const scope = numberScope(prefix, phoneNumberId);
  return { slot: `${scope}:pacer:${phoneNumberId}:slot`, sent: `${scope}:pacer:${phoneNumberId}:sent` };
}

/** The dashboard's CSRF HMAC key, one for every service on this Redis and prefix (src/dashboard/csrf.ts). */
export function csrfKeyName(prefix: string): string {
  return `${prefix}:dashboard:csrf-key`;
}

/**
 * The dashboard's failed logins (src/redis/access/redis-login-attempts.ts): per window (`<window>`: windows of the throttle's length
 * since the epoch), by client address and by the SHA-256 of the user name tried (any text a client sends: never a key as given),
 * and the refusals counted for cw_dashboard_login_refusals_total. One hash tag: the script that counts a login touches one slot.
 */
export function dashboardLoginKeys(prefix: string): {
  address(address: string, window: number): string;
  user(userDigest: string, window: number): string;
  refusals: string;
} {
  const base = `${prefix}:{${prefix}:dashboard-login}`;
  return {
    address: (address, window) => `${base}:address:${address}:${window}`,
    user: (userDigest, window) => `${base}:user:${userDigest}:${window}`,
    refusals: `${base}:refusals`,
  };
}

/** The HTTP API's per-caller request counts (@fastify/rate-limit's Redis store appends the caller). */
export function apiRateLimitNamespace(prefix: string): string {
  return `${prefix}:api:rate:`;
}
