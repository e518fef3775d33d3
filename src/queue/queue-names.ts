import { numberScope } from '../redis/key-scope.js';

/** One send queue per phone number, so each number has its own limiter and backlog. */
export function sendQueueName(phoneNumberId: string): string {
  return `send-${phoneNumberId}`;
}

/**
 * BullMQ's prefix for a number's send queue: the number's scope (src/redis/key-scope.ts), so the
 * queue's keys share the cluster slot of the number's ledger keys.
 */
export function sendQueuePrefix(prefix: string, phoneNumberId: string): string {
  return numberScope(prefix, phoneNumberId);
}
