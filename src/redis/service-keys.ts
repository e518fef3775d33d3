import { numberScope } from './key-scope.js';

/*
 * The names of the keys kept beside the ledger and the metrics: BullMQ's send queues, the
 * pacer's, the dashboard's CSRF key (the webhook inbox's are in webhook-keys.ts). Named here,
 * with the ledger's (ledger-keys.ts), so that nothing outside src/redis builds a key name.
 */

/**
 * BullMQ's prefix for a number's send queue: the number's scope (key-scope.ts), so the queue's
 * keys share the cluster slot of the number's ledger keys.
 */
export function sendQueuePrefix(prefix: string, phoneNumberId: string): string {
  return numberScope(prefix, phoneNumberId);
}

/** The pacer's keys of a number (src/queue/send-pacer.ts): its next slot, and the sends of its last second. In the number's scope: both scripts stay in its slot. */
export function pacerKeys(prefix: string, phoneNumberId: string): { slot: string; sent: string } {
  const scope = numberScope(prefix, phoneNumberId);
  return { slot: `${scope}:pacer:${phoneNumberId}:slot`, sent: `${scope}:pacer:${phoneNumberId}:sent` };
}

/** The dashboard's CSRF HMAC key, one for every service on this Redis and prefix (src/dashboard/csrf.ts). */
export function csrfKeyName(prefix: string): string {
  return `${prefix}:dashboard:csrf-key`;
}
