/**
 * The webhook service's keys: `inbox`, the stream every signed POST is appended to before
 * the 200 (fields `body`: the raw bytes, `at`: ms received); `parked`, statuses whose message
 * no row has yet (→ ms first seen); `stats`, counters of what the consumers did.
 */
export function webhookKeys(prefix: string): { inbox: string; parked: string; stats: string } {
  return { inbox: `${prefix}:webhooks:inbox`, parked: `${prefix}:webhooks:parked`, stats: `${prefix}:webhooks:stats` };
}
