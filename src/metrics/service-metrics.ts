import { readyWithin } from '../redis/redis-connection.js';
import { Counter, Gauge, Registry, collectDefaultMetrics } from 'prom-client';
import { SEND_LATENCY_BUCKETS, WEBHOOK_LAG_BUCKETS } from './buckets.js';
import { QUEUE_STATES, ScrapeReader, type MetricsSnapshot, type ScrapeReaderOptions } from './scrape-reader.js';
import { StoredHistogram } from './stored-histogram.js';
import { registerRelayMetrics } from './relay-metrics.js';
import { registerHookMetrics } from './hook-metrics.js';

/** What GET /metrics answers. */
export interface ScrapeResult {
  contentType: string;
  body: string;
}

export interface ServiceMetrics {
  /** Reads every figure from Redis now and renders the exposition text; rejects when Redis does not answer. */
  scrape(): Promise<ScrapeResult>;
  close(): Promise<void>;
}

/** How long a scrape waits for the connection to come up (the service starts before Redis may answer). */
const CONNECT_WAIT_MS = 1000;

/**
 * `campaign serve`'s /metrics: prom-client's default process metrics and the cw_* metrics
 * (docs/monitoring.md, "Metrics"). Workers are other processes, so nothing here counts anything: each
 * scrape reads the totals every process keeps in Redis and sets the metrics from them. The
 * counters are Redis totals, so they only grow from one scrape to the next whichever
 * service instance is scraped; a campaign's series go METRICS_RETENTION_HOURS after it ends.
 */
export function createServiceMetrics(options: ScrapeReaderOptions & { relayTargets?: readonly string[] }): ServiceMetrics {
  const registry = new Registry();
  collectDefaultMetrics({ register: registry });
  const metrics = defineMetrics(registry);
  // The relay's per-target figures (RELAY_WEBHOOKS), read by their own collect callbacks at each scrape.
  registerRelayMetrics(registry, { ...options, targets: options.relayTargets ?? [] });
  // The outbound hooks' figures, per hook, read the same way.
  registerHookMetrics(registry, options);

  const reader = new ScrapeReader(options);

  // Scrapes that overlap share one read, so two never interleave their resets and sets.
  let scraping: Promise<ScrapeResult> | undefined;
  const scrapeOnce = async (): Promise<ScrapeResult> => {
    await readyWithin(options.redis, CONNECT_WAIT_MS);
    applySnapshot(metrics, await reader.read());
    return { contentType: registry.contentType, body: await registry.metrics() };
  };
  return {
    scrape: () => (scraping ??= scrapeOnce().finally(() => (scraping = undefined))),
    // Bounded: with Redis away a queue still initialising would hold the service's exit.
    close: () => Promise.race([reader.close(), new Promise<void>((resolve) => setTimeout(resolve, CONNECT_WAIT_MS).unref())]),
  };
}

/** The cw_* metrics, registered in `registry` in the order they are exposed. */
function defineMetrics(registry: Registry) {
  const registers = [registry];
  const rows = new Gauge({
    name: 'cw_campaign_rows',
    help:
      'Rows of a campaign by status (delivered and read: rows Meta reported so; a read row counts in both; clicked: rows whose ' +
      'tracked link was clicked, in a campaign that tracks clicks)',
    labelNames: ['campaign_id', 'status'],
    registers,
  });
  const eta = new Gauge({
    name: 'cw_campaign_eta_seconds',
    help:
      'Seconds until the campaign ends, with its send window, days and expiry, at the rate it achieved (a windowed campaign, ' +
      "or one with no answer yet: its number's SEND_RATE); 0 once finished; absent while paused or cancelled",
    labelNames: ['campaign_id'],
    registers,
  });
  const jobs = new Gauge({
    name: 'cw_queue_jobs',
    help: "Jobs in the phone number's BullMQ send queue by state",
    labelNames: ['phone_number_id', 'state'],
    registers,
  });
  const rate = new Gauge({
    name: 'cw_send_rate',
    help: 'Requests to the Cloud API per second over the last 10 s, every worker together',
    labelNames: ['phone_number_id'],
    registers,
  });
  const sends = new Counter({
    name: 'cw_sends_total',
    help: "Requests to the Cloud API by result: accepted, Meta's error code, HTTP_<status>, or TRANSPORT_<failure>",
    labelNames: ['phone_number_id', 'result'],
    registers,
  });
  const latency = new StoredHistogram({
    name: 'cw_send_latency_seconds',
    help: 'Cloud API request to answer, in seconds',
    buckets: SEND_LATENCY_BUCKETS,
    registry,
  });
  const events = new Counter({
    name: 'cw_webhook_events_total',
    help: 'Webhook events taken in, by kind',
    labelNames: ['kind'],
    registers,
  });
  const lag = new StoredHistogram({
    name: 'cw_webhook_lag_seconds',
    help: "Meta's status timestamp (whole seconds) to the row updated, in seconds",
    buckets: WEBHOOK_LAG_BUCKETS,
    registry,
  });
  const billable = new Counter({
    name: 'cw_billable_messages_total',
    help: "Messages whose status webhooks carried a billable `pricing` (Meta charges them), by category and the recipient's market",
    labelNames: ['phone_number_id', 'category', 'market'],
    registers,
  });
  const accountErrors = new Counter({
    name: 'cw_account_errors_total',
    help: "Account-, app- and system-level errors Meta reported by webhook (a change's `errors`), by phone number and Meta's code",
    labelNames: ['phone_number_id', 'code'],
    registers,
  });
  const loginRefusals = new Counter({
    name: 'cw_dashboard_login_refusals_total',
    help:
      'Dashboard logins refused: wrong_credentials (401), throttled_address and throttled_user (429: too many wrong passwords ' +
      'from the address or for the user this minute)',
    labelNames: ['reason'],
    registers,
  });
  return { rows, eta, jobs, rate, sends, latency, events, lag, billable, accountErrors, loginRefusals, ...defineIntakeMetrics(registers) };
}

/** The webhook inbox's bound and replay guard (docs/webhooks.md, "A bounded inbox"). */
function defineIntakeMetrics(registers: Registry[]) {
  const inboxEntries = new Gauge({
    name: 'cw_webhook_inbox_entries',
    help: 'Signed webhook bodies in the inbox not yet applied by a consumer (503 to Meta at WEBHOOK_INBOX_MAX)',
    registers,
  });
  const replaysDropped = new Counter({
    name: 'cw_webhook_replays_dropped_total',
    help: 'Exact replays (same signature) of a body the inbox held unapplied: answered 200, not stored again',
    registers,
  });
  const inboxFull = new Counter({
    name: 'cw_webhook_inbox_full_total',
    help: 'Signed webhook bodies refused with 503 because the inbox held WEBHOOK_INBOX_MAX entries (Meta retries them)',
    registers,
  });
  return { inboxEntries, replaysDropped, inboxFull };
}

/** Sets every metric from one snapshot of the Redis totals. */
function applySnapshot(metrics: ReturnType<typeof defineMetrics>, s: MetricsSnapshot): void {
  const { rows, eta, jobs, rate, sends, latency, events, lag, billable, accountErrors } = metrics;
  // Everything is set afresh: a campaign past its retention, or a number without campaigns, simply has no series.
  for (const metric of [rows, eta, jobs, rate, sends, events, billable, accountErrors]) metric.reset();
  for (const { id, figures } of s.campaigns) {
    for (const [status, n] of figures.rows) rows.set({ campaign_id: id, status }, n);
    if (figures.etaSeconds !== undefined) eta.set({ campaign_id: id }, figures.etaSeconds);
  }
  for (const number of s.numbers) {
    for (const state of QUEUE_STATES) jobs.set({ phone_number_id: number.phoneNumberId, state }, number.jobs[state]);
    rate.set({ phone_number_id: number.phoneNumberId }, number.rate);
  }
  // Counters from their Redis totals: monotonic across scrapes (a reset then one inc of the total).
  for (const [phoneNumberId, result, n] of s.sends) sends.inc({ phone_number_id: phoneNumberId, result }, n);
  for (const [kind, n] of s.webhookEvents) events.inc({ kind }, n);
  for (const [phoneNumberId, category, market, n] of s.billable) billable.inc({ phone_number_id: phoneNumberId, category, market }, n);
  for (const [phoneNumberId, code, n] of s.accountErrors) accountErrors.inc({ phone_number_id: phoneNumberId, code }, n);
  latency.setTotals(s.sendLatency);
  lag.setTotals(s.webhookLag);
  // Totals in Redis, written by every `serve`'s intake: set afresh like the counters above.
  metrics.inboxEntries.set(s.webhookIntake.inboxEntries);
  metrics.replaysDropped.reset();
  metrics.replaysDropped.inc(s.webhookIntake.replaysDropped);
  metrics.inboxFull.reset();
  metrics.inboxFull.inc(s.webhookIntake.inboxFull);
  metrics.loginRefusals.reset();
  for (const [reason, n] of s.loginRefusals) metrics.loginRefusals.inc({ reason }, n);
}
