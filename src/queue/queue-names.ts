/** One send queue per phone number, so each number has its own limiter and backlog. */
export function sendQueueName(phoneNumberId: string): string {
  return `send-${phoneNumberId}`;
}
