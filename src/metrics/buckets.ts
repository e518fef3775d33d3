/**
 * Histogram bounds (seconds). Stored by their `le` text, so a scrape can still add up what a
 * worker of another version stored with other bounds.
 */
export const SEND_LATENCY_BUCKETS: readonly number[] = [0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10, 15, 30];

/** Meta's timestamps are whole seconds, so a lag reads up to 1 s high: no finer bounds than that. */
export const WEBHOOK_LAG_BUCKETS: readonly number[] = [1, 2, 5, 10, 30, 60, 120, 300, 600, 1800, 3600];

export const INF_BUCKET = '+Inf';

/** The `le` of the bucket `value` falls in: the first bound at or above it, else `+Inf`. */
export function bucketOf(bounds: readonly number[], value: number): string {
  for (const bound of bounds) if (value <= bound) return String(bound);
  return INF_BUCKET;
}
