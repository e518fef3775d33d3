import { sharedScope } from '../key-scope.js';

/**
 * Where the metrics live in Redis, under the queue prefix. Workers and the webhook consumer
 * add to these (once a second, or in the transaction they already run); `campaign serve`
 * reads them at scrape time, so every process's work shows in one scrape.
 *
 * - `sends`: hash `<phone_number_id>|<result>` → requests made (a Prometheus counter)
 * - `sendLatency`, `webhookLag`: histogram hashes, `<le>` → observations in that bucket (not
 *   cumulative; `+Inf` for those above the last bound), `sum`, `count`
 * - `webhookEvents`: hash `<kind>` → events (a counter)
 * - `billable`: hash `<phone_number_id>|<category>|<market>` → billable messages (a counter)
 * - `accountErrors`: hash `<phone_number_id>|<code>` → account-level errors Meta reported by webhook (a counter)
 * - `rate(phone, second)`: requests made in that wall-clock second (expires: only the last few seconds are read)
 */
export interface MetricsKeys {
  sends: string;
  sendLatency: string;
  webhookEvents: string;
  webhookLag: string;
  billable: string;
  accountErrors: string;
  rate(phoneNumberId: string, second: number): string;
}

export function metricsKeys(prefix: string): MetricsKeys {
  // In the shared scope: a worker's flush and the webhook consumer's MULTI each stay in one slot.
  const base = `${sharedScope(prefix)}:metrics`;
  return {
    sends: `${base}:sends`,
    sendLatency: `${base}:send-latency`,
    webhookEvents: `${base}:webhook-events`,
    webhookLag: `${base}:webhook-lag`,
    billable: `${base}:billable`,
    accountErrors: `${base}:account-errors`,
    rate: (phoneNumberId, second) => `${base}:rate:${phoneNumberId}:${second}`,
  };
}

/** Separates the number from the result in a `sends` field (IDs are digits, results have no `|`). */
export const SENDS_FIELD_SEPARATOR = '|';

/** How long a per-second count is kept: longer than the rate window and a late flush. */
export const RATE_KEY_TTL_SECONDS = 60;
