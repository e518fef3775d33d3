import { SEND_LATENCY_BUCKETS, WEBHOOK_LAG_BUCKETS } from '../../metrics/buckets.js';
import type { MetricsTotals, MetricsTotalsReader } from '../../metrics/metrics-totals.js';
import type { RedisClient } from '../key-scope.js';
import { metricsKeys, type MetricsKeys } from './metric-keys.js';
import { execPipeline } from '../redis-connection.js';
import { accountErrorTotals, billableTotals, histogramTotals, rateOf, rateWindow, sendTotals } from '../ledger/stored-totals.js';

/** The metrics' totals as RedisSendRecorder and WebhookMetrics keep them, read for a scrape: a pipeline each. */
export class RedisMetricsStore implements MetricsTotalsReader {
  readonly #redis: RedisClient;
  readonly #keys: MetricsKeys;

  constructor(redis: RedisClient, prefix: string) {
    this.#redis = redis;
    this.#keys = metricsKeys(prefix);
  }

  async totals(): Promise<MetricsTotals> {
    const keys = this.#keys;
    const [sends, latency, events, lag, billable, accountErrors] = await execPipeline<
      [
        Record<string, string>,
        Record<string, string>,
        Record<string, string>,
        Record<string, string>,
        Record<string, string>,
        Record<string, string>,
      ]
    >(
      this.#redis
        .pipeline()
        .hgetall(keys.sends)
        .hgetall(keys.sendLatency)
        .hgetall(keys.webhookEvents)
        .hgetall(keys.webhookLag)
        .hgetall(keys.billable)
        .hgetall(keys.accountErrors),
    );
    return {
      sends: sendTotals(sends),
      sendLatency: histogramTotals(latency, SEND_LATENCY_BUCKETS),
      webhookEvents: Object.entries(events).map(([kind, n]) => [kind, Number(n) || 0]),
      webhookLag: histogramTotals(lag, WEBHOOK_LAG_BUCKETS),
      billable: billableTotals(billable),
      accountErrors: accountErrorTotals(accountErrors),
    };
  }

  async rates(phoneNumberIds: readonly string[], now: number): Promise<number[]> {
    if (phoneNumberIds.length === 0) return [];
    const seconds = rateWindow(now);
    const pipeline = this.#redis.pipeline();
    for (const phoneNumberId of phoneNumberIds) pipeline.mget(...seconds.map((s) => this.#keys.rate(phoneNumberId, s)));
    const perSecond = await execPipeline<(string | null)[][]>(pipeline);
    return phoneNumberIds.map((_, i) => rateOf(perSecond[i] ?? []));
  }
}
