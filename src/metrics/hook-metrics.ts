import type { Registry } from 'prom-client';
import { labelledFigureSeries, type LabelledFigures } from './labelled-figures.js';
import type { HookFigures } from '../hooks/hook.js';
import type { RedisClient } from '../redis/key-scope.js';
import { RedisHookRegistry } from '../redis/hooks/redis-hook-registry.js';

export interface HookMetricsOptions {
  redis: RedisClient;
  prefix: string;
}

/**
 * The outbound hooks' figures on /metrics (docs/monitoring.md, docs/events.md), per hook: read
 * from Redis at each scrape (every replica's and the CLI's totals), by the metrics' own collect
 * callbacks, which share one read per scrape. A removed hook's series go with it.
 */
export function registerHookMetrics(registry: Registry, options: HookMetricsOptions): void {
  const hooks = new RedisHookRegistry(options.redis, options.prefix);
  // A read that fails leaves the hook series out of this one scrape (a gap, not a counter reset) rather than failing
  // the whole scrape: the scrape has already found Redis up, and the service's own figures still count.
  const read = async (): Promise<LabelledFigures<HookFigures>[]> => {
    const all = await hooks.all();
    return Promise.all(all.map(async ({ definition }) => ({ label: definition.name, figures: await hooks.figures(definition.name) })));
  };
  const { counter, gauge } = labelledFigureSeries<HookFigures>(registry, 'hook', () => read().catch(() => []));
  counter('campaign_hook_events_queued_total', "Events put in an outbound hook's outbox (again, when redelivered)", (f) => f.queued);
  counter('campaign_hook_events_delivered_total', "Events an outbound hook's receiver acknowledged with a 2xx", (f) => f.delivered);
  counter(
    'campaign_hook_events_retried_total',
    'Events sent to an outbound hook again after a failed attempt (one per event per retry)',
    (f) => f.retried,
  );
  counter(
    'campaign_hook_events_dead_total',
    "Events an outbound hook's receiver did not take within HOOK_RETRY_HOURS (in its dead letters: `campaign hooks failed NAME`)",
    (f) => f.dead,
  );
  gauge('campaign_hook_events_waiting', "Events in an outbound hook's outbox now, not yet delivered", (f) => f.waiting);
  gauge(
    'campaign_hook_delivery_lag_seconds',
    "Seconds from the oldest event of an outbound hook's last delivered batch to its acknowledgement (absent before any)",
    (f) => f.lagSeconds,
  );
}
