/** One send queue per phone number, so each number has its own limiter and backlog. */
export function sendQueueName(phoneNumberId: string): string {
  return `send-${phoneNumberId}`;
}

/** BullMQ's prefix for a number's send queue (in the number's cluster slot). */
export { sendQueuePrefix } from '../redis/service-keys.js';
