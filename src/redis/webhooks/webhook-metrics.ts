import type { ChainableCommander } from 'ioredis';
import { WEBHOOK_LAG_BUCKETS } from '../../metrics/buckets.js';
import { metricsKeys, type MetricsKeys } from '../metrics/metric-keys.js';
import { CounterTally, HistogramTally } from '../metrics/metric-tallies.js';
import { isKnownPricingCategory, OTHER_PRICING_CATEGORY } from '../../pricing/pricing-category.js';
import type { RedisClient } from '../key-scope.js';
import { execPipeline } from '../redis-connection.js';
import { webhookKeys } from './webhook-keys.js';

/**
 * The `kind` label of cw_webhook_events_total: a status by Meta's name (`sent`, `delivered`,
 * `read`, `failed`), a user's `message`, a `user_preferences` change, a `user_changed_user_id`
 * system message, a template's or the messaging limit's webhook by its field, an `account_error`
 * (a change's `errors[]`: account-, app- or system-level), or what was not
 * applied: `ignored` (fields and statuses we do not act on), `malformed` (an item we could not
 * read), `unreadable` (a signed POST that is not a webhook body); `unlinked` counts messages
 * and preferences (also counted by kind) that came with a user ID only whose phone is not
 * known yet: kept, and applied when a webhook links it.
 */
export type WebhookEventKind =
  | 'sent'
  | 'delivered'
  | 'read'
  | 'failed'
  | 'message'
  | 'user_preferences'
  | 'message_template_status_update'
  | 'user_changed_user_id'
  | 'unlinked'
  | 'message_template_quality_update'
  | 'template_category_update'
  | 'business_capability_update'
  | 'account_update'
  | 'account_error'
  | 'ignored'
  | 'malformed'
  | 'unreadable';

/**
 * The webhook consumer's metrics. It already ends each batch with one MULTI (ack, delete,
 * its stats): what it counted goes into that same MULTI, so metrics cost no extra round
 * trip, and they count exactly what was acknowledged (a batch that failed is read again, and
 * counted then).
 */
export class WebhookMetrics {
  readonly #keys: MetricsKeys;
  #events = new CounterTally();
  #lag = new HistogramTally(WEBHOOK_LAG_BUCKETS);
  #billable = new CounterTally();
  #accountErrors = new CounterTally();

  constructor(prefix: string) {
    this.#keys = metricsKeys(prefix);
  }

  count(kind: WebhookEventKind, n = 1): void {
    if (n > 0) this.#events.add(kind, n);
  }

  /** A status applied to its row: `metaAt` is Meta's timestamp (ms, whole seconds), `appliedAt` when the row was updated. */
  observeLag(metaAt: number, appliedAt: number): void {
    this.#lag.observe((appliedAt - metaAt) / 1000);
  }

  /**
   * A status that recorded its row's billable `pricing` (once per row): by number, category and
   * market. A category Meta may add is counted as `other`, so the series stay few.
   */
  countBillable(phoneNumberId: string, category: string, market: string): void {
    const known = isKnownPricingCategory(category) ? category : OTHER_PRICING_CATEGORY;
    this.#billable.add(`${phoneNumberId}|${known}|${market}`);
  }

  /** An account-level error Meta reported for a number (`unknown` when the change named none), by its code. */
  countAccountError(phoneNumberId: string, code: string): void {
    this.#accountErrors.add(`${phoneNumberId === '' ? 'unknown' : phoneNumberId}|${code}`);
  }

  /** Forgets what a batch counted before it failed (it is read again, and counted then). */
  discard(): void {
    this.#events = new CounterTally();
    this.#lag = new HistogramTally(WEBHOOK_LAG_BUCKETS);
    this.#billable = new CounterTally();
    this.#accountErrors = new CounterTally();
  }

  /** Adds what was counted since the last call to `tx` and starts again from zero. */
  drainInto(tx: ChainableCommander): void {
    this.#events.writeTo(tx, this.#keys.webhookEvents);
    this.#lag.writeTo(tx, this.#keys.webhookLag);
    this.#billable.writeTo(tx, this.#keys.billable);
    this.#accountErrors.writeTo(tx, this.#keys.accountErrors);
    this.discard();
  }
}

/** The intake's figures at a scrape: entries the inbox holds now, and what it did not store, every `serve` together. */
export interface WebhookIntakeFigures {
  /** Entries not yet applied (cw_webhook_inbox_entries). */
  inboxEntries: number;
  /** Exact replays of a body the inbox held, answered 200 and not stored (cw_webhook_replays_dropped_total). */
  replaysDropped: number;
  /** Bodies refused with 503 at WEBHOOK_INBOX_MAX (cw_webhook_inbox_full_total). */
  inboxFull: number;
}

/** Reads the intake's figures (src/redis/lua/webhooks/append.lua keeps the counts) in one round trip. */
export async function readWebhookIntake(redis: RedisClient, prefix: string): Promise<WebhookIntakeFigures> {
  const keys = webhookKeys(prefix);
  const [entries, counts] = await execPipeline<[number, Record<string, string>]>(redis.pipeline().xlen(keys.inbox).hgetall(keys.intake));
  return { inboxEntries: entries, replaysDropped: Number(counts.replays ?? 0) || 0, inboxFull: Number(counts.full ?? 0) || 0 };
}
