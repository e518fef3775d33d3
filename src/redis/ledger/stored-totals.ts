import { INF_BUCKET } from '../../metrics/buckets.js';
import type { HistogramTotals } from '../../metrics/metrics-totals.js';
import { SENDS_FIELD_SEPARATOR } from '../metrics/metric-keys.js';

// The metrics' hashes as stored (metric-keys.ts) as totals, and the seconds the rate adds up.

/** cw_send_rate: requests per second over this many seconds. */
export const RATE_WINDOW_SECONDS = 10;
/**
 * The window ends this many seconds before the current one: workers flush about once a
 * second, so the last second or two are not all in Redis yet (reading them would show a dip).
 */
const RATE_WINDOW_LAG_SECONDS = 1;

/** The wall-clock seconds cw_send_rate adds up at `now` (ms): the last RATE_WINDOW_SECONDS complete and flushed ones. */
export function rateWindow(now: number): number[] {
  const last = Math.floor(now / 1000) - 1 - RATE_WINDOW_LAG_SECONDS;
  return Array.from({ length: RATE_WINDOW_SECONDS }, (_, i) => last - RATE_WINDOW_SECONDS + 1 + i);
}

/** Per-second counts (as MGET answers, null for a second with none) → messages per second. */
export function rateOf(counts: readonly (string | null)[]): number {
  return counts.reduce((sum, n) => sum + (Number(n ?? 0) || 0), 0) / RATE_WINDOW_SECONDS;
}

/** The `sends` hash → [phone, result, total]. */
export function sendTotals(hash: Record<string, string>): [string, string, number][] {
  return Object.entries(hash).map(([field, n]) => {
    const at = field.indexOf(SENDS_FIELD_SEPARATOR);
    return [field.slice(0, at), field.slice(at + 1), Number(n)];
  });
}

/**
 * A histogram hash (`<le>` → observations in that bucket, `sum`, `count`) → cumulative
 * counts at `bounds`. A stored bucket whose bound is not one of these (written by a version
 * with other bounds) counts at every bound above it, as Prometheus's cumulative buckets do.
 */
export function histogramTotals(hash: Record<string, string>, bounds: readonly number[]): HistogramTotals {
  const stored: { le: number; n: number }[] = [];
  for (const [field, n] of Object.entries(hash)) {
    if (field === 'sum' || field === 'count') continue;
    stored.push({ le: field === INF_BUCKET ? Number.POSITIVE_INFINITY : Number(field), n: Number(n) || 0 });
  }
  const buckets = bounds.map((le) => ({ le, count: stored.filter((s) => s.le <= le).reduce((sum, s) => sum + s.n, 0) }));
  return { buckets, sum: Number(hash.sum ?? 0) || 0, count: Number(hash.count ?? 0) || 0 };
}

/** The `billable` hash (`<number>|<category>|<market>` → n) as cw_billable_messages_total's series. */
export function billableTotals(hash: Record<string, string>): [string, string, string, number][] {
  return Object.entries(hash).flatMap(([field, n]) => {
    const [phoneNumberId, category, market] = field.split('|');
    return phoneNumberId === undefined || category === undefined || market === undefined
      ? []
      : [[phoneNumberId, category, market, Number(n) || 0] as [string, string, string, number]];
  });
}

/** `accountErrors` fields `<phone_number_id>|<code>` → the metric's series. */
export function accountErrorTotals(hash: Record<string, string>): [string, string, number][] {
  return Object.entries(hash).flatMap(([field, n]) => {
    const [phoneNumberId, code] = field.split('|');
    return phoneNumberId === undefined || code === undefined ? [] : [[phoneNumberId, code, Number(n) || 0] as [string, string, number]];
  });
}
