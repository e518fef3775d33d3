/** A histogram's totals: cumulative counts at each bound (Prometheus's `le`), sum and count. */
export interface HistogramTotals {
  buckets: { le: number; count: number }[];
  sum: number;
  count: number;
}

/** What every process counted so far, summed: the counters behind the cw_* metrics. */
export interface MetricsTotals {
  /** Requests to the Cloud API by phone number and result. */
  sends: [phoneNumberId: string, result: string, total: number][];
  sendLatency: HistogramTotals;
  webhookEvents: [kind: string, total: number][];
  webhookLag: HistogramTotals;
  /** Messages Meta's `pricing` said were billable, by number, category and the recipient's market. */
  billable: [phoneNumberId: string, category: string, market: string, total: number][];
  /** Account-, app- and system-level errors Meta reported by webhook, by number and code. */
  accountErrors: [phoneNumberId: string, code: string, total: number][];
}

/** Where workers and the webhook consumer keep their counts, read at each scrape (src/redis/metrics/redis-metrics-store.ts). */
export interface MetricsTotalsReader {
  totals(): Promise<MetricsTotals>;
  /** Requests per second of each number (in their order) over the last few complete seconds before `now` (ms). */
  rates(phoneNumberIds: readonly string[], now: number): Promise<number[]>;
}
