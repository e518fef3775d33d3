import { Histogram, type Registry } from 'prom-client';
import type { HistogramTotals } from './metrics-totals.js';

type HistogramData = Awaited<ReturnType<Histogram['get']>>;

/**
 * A Prometheus histogram whose figures are totals kept in Redis by other processes (set at
 * each scrape), not observations made here. prom-client's Histogram can only observe one
 * value at a time, so this one renders its own samples: the same names and layout
 * (`_bucket{le}` cumulative, `+Inf`, `_sum`, `_count`) from the stored totals.
 */
export class StoredHistogram extends Histogram {
  readonly #name: string;
  readonly #help: string;
  #totals: HistogramTotals;

  constructor(options: { name: string; help: string; buckets: readonly number[]; registry: Registry }) {
    super({ name: options.name, help: options.help, buckets: [...options.buckets], registers: [options.registry] });
    this.#name = options.name;
    this.#help = options.help;
    this.#totals = { buckets: options.buckets.map((le) => ({ le, count: 0 })), sum: 0, count: 0 };
  }

  setTotals(totals: HistogramTotals): void {
    this.#totals = totals;
  }

  override get(): Promise<HistogramData> {
    return this.getForPromString();
  }

  /** What the registry renders (prom-client calls this rather than get() when a metric has it). */
  getForPromString(): Promise<HistogramData> {
    const { buckets, sum, count } = this.#totals;
    const bucket = `${this.#name}_bucket`;
    const values = [
      ...buckets.map((b) => ({ labels: { le: b.le }, value: b.count, metricName: bucket })),
      { labels: { le: '+Inf' }, value: count, metricName: bucket },
      { labels: {}, value: sum, metricName: `${this.#name}_sum` },
      { labels: {}, value: count, metricName: `${this.#name}_count` },
    ];
    // `type` is the exposition's word; prom-client's typings call it an enum.
    return Promise.resolve({
      name: this.#name,
      help: this.#help,
      type: 'histogram',
      aggregator: 'sum',
      values,
    } as unknown as HistogramData);
  }
}
