import type { Registry } from 'prom-client';
import { labelledFigureSeries } from './labelled-figures.js';
import type { RedisClient } from '../redis/key-scope.js';
import { readRelayFigures, type RelayFigures } from '../redis/relay/relay-figures.js';

export interface RelayMetricsOptions {
  redis: RedisClient;
  prefix: string;
  /** The RELAY_WEBHOOKS targets' names: one series each; none, no relay metrics. */
  targets: readonly string[];
  now?: () => number;
}

/**
 * The relay's figures on /metrics (docs/events.md, "Relay"), per target: read from Redis at
 * each scrape (every replica's totals; the counters only grow), by the metrics' own collect
 * callbacks, which share one read per scrape.
 */
export function registerRelayMetrics(registry: Registry, options: RelayMetricsOptions): void {
  if (options.targets.length === 0) return;
  const now = options.now ?? Date.now;
  const read = async () =>
    (await readRelayFigures(options.redis, options.prefix, options.targets, now())).map((f) => ({ label: f.target, figures: f }));
  const { counter, gauge } = labelledFigureSeries<RelayFigures>(registry, 'target', read);
  counter(
    'campaign_relay_webhooks_forwarded_total',
    "Meta's webhooks forwarded to a RELAY_WEBHOOKS target (it answered 2xx)",
    (f) => f.forwarded,
  );
  counter(
    'campaign_relay_webhooks_retried_total',
    'Failed attempts to forward a webhook to a relay target, tried again later',
    (f) => f.retried,
  );
  counter(
    'campaign_relay_webhooks_dead_total',
    "Webhooks a relay target did not take within HOOK_RETRY_HOURS (kept in the target's dead letters)",
    (f) => f.dead,
  );
  gauge('campaign_relay_webhooks_waiting', 'Accepted webhooks a relay target has not had yet', (f) => f.waiting);
  gauge(
    'campaign_relay_lag_seconds',
    'Age of the oldest webhook a relay target has not had yet, in seconds (0: none waits)',
    (f) => f.lagSeconds,
  );
}
