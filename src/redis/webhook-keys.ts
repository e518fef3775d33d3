import { sharedScope } from './key-scope.js';

/**
 * The webhook service's keys: `inbox`, the stream every signed POST is appended to before
 * the 200 (fields `body`: the raw bytes, `at`: ms received); `parked`, statuses whose message
 * no row has yet (→ ms first seen); `stats`, counters of what the consumers did;
 * `accountErrors`, the newest account-level errors Meta reported (a list of JSON, newest first).
 */
export function webhookKeys(prefix: string): { inbox: string; parked: string; stats: string; accountErrors: string } {
  // In the shared scope, with the metrics: the consumer's MULTI (ack, stats, metrics) is one slot.
  const base = `${sharedScope(prefix)}:webhooks`;
  return { inbox: `${base}:inbox`, parked: `${base}:parked`, stats: `${base}:stats`, accountErrors: `${base}:account-errors` };
}
