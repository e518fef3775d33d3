import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROW_STATUSES } from '../../src/campaigns/campaign.js';
import { silentLogger } from '../../src/logging/logger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { FaultHarness, type StatusJson } from '../support/fault-harness.js';
import { PHONE_NUMBER_ID } from '../support/pipeline.js';
import { redisUrl } from '../support/redis.js';
import { samplesOf, scrape, sumOf, valueOf, type Exposition } from './metrics-exposition.js';
import { postSignedWebhook } from '../support/signed-webhook.js';

/**
 * GET /metrics of `campaign serve` (in this process) while `campaign worker`
 * (another process) sends a campaign to the sandbox at SEND_RATE=100, and the sandbox posts
 * signed status webhooks back. Every figure comes from Redis at scrape time, so the worker's
 * sends show in this process's scrape. A second service on the same prefix, with a tiny
 * METRICS_RETENTION_HOURS, shows the same figures and drops the campaign's series soon after
 * it finishes.
 */
const ROWS = 2000;
const RATE = 100;
/** Mid-way: this many rows sent means 13 s of sending at 100/s, more than the rate's window (10 s, ending 2 s ago). */
const MID_SENT = 1300;
const SECRET = 'metrics-app-secret';
const STATUSES_AND_META = [...ROW_STATUSES, 'delivered', 'read'].sort();

function rowsOf(e: Exposition, id: string): Record<string, number> {
  return Object.fromEntries(samplesOf(e, 'cw_campaign_rows', { campaign_id: id }).map((s) => [s.labels.status ?? '', s.value]));
}

/** Rows summed over the row statuses (delivered and read are not statuses: a delivered row is `sent`). */
function rowsByStatusTotal(rows: Record<string, number>): number {
  return ROW_STATUSES.reduce((sum, status) => sum + (rows[status] ?? 0), 0);
}

function accepted(e: Exposition): number {
  return valueOf(e, 'cw_sends_total', { phone_number_id: PHONE_NUMBER_ID, result: 'accepted' }) ?? 0;
}

/** Signed with this file's app secret, as Meta signs it. */
function signedPost(url: string, body: string | Buffer): Promise<number> {
  return postSignedWebhook(url, SECRET, body);
}

/** A user's text message to the number (reference §3.4), timestamped now. */
function inboundText(wamid: string): string {
  const message = {
    from: '4915199999999',
    id: wamid,
    timestamp: String(Math.floor(Date.now() / 1000)),
    type: 'text',
    text: { body: 'hello' },
  };
  const value = {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: '15550000000', phone_number_id: PHONE_NUMBER_ID },
    messages: [message],
  };
  return JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'messages', value }] }] });
}

describe('GET /metrics: a campaign sent by `campaign worker` in another process', () => {
  let rig: FaultHarness;
  /** The same prefix, METRICS_RETENTION_HOURS=0.0003 (about 1 s); its own app secret, for the test's own webhooks. */
  let shortLived: RunningService | undefined;

  beforeAll(async () => {
    rig = await FaultHarness.start({ label: 'metrics', rows: ROWS, sendRate: RATE, sandboxMps: 0, webhooks: true });
    shortLived = await startService(
      { port: 0, host: '127.0.0.1' },
      {
        REDIS_URL: redisUrl(),
        QUEUE_PREFIX: rig.prefix,
        LOG_LEVEL: 'warn',
        WHATSAPP_APP_SECRET: SECRET,
        WEBHOOK_VERIFY_TOKEN: 'metrics-verify',
        METRICS_RETENTION_HOURS: '0.0003',
      },
      silentLogger(),
    );
  });

  afterAll(async () => {
    await shortLived?.close();
    await rig?.close();
  });

  it(
    'rows by status add up to the total, the rate shows sending within the ceiling, counters match the ledger, ' +
      'webhooks count, and the series go after retention',
    async () => {
      const url = rig.service?.url ?? '';
      const other = shortLived?.url ?? '';

      // Before any campaign: prom-client's process metrics and every cw_ family, with its type.
      const empty = await scrape(url);
      expect(samplesOf(empty, 'process_cpu_user_seconds_total')).toHaveLength(1);
      expect(samplesOf(empty, 'nodejs_heap_size_used_bytes')).toHaveLength(1);
      expect(Object.fromEntries([...empty.types].filter(([name]) => name.startsWith('cw_')))).toEqual({
        cw_campaign_rows: 'gauge',
        cw_campaign_eta_seconds: 'gauge',
        cw_queue_jobs: 'gauge',
        cw_send_rate: 'gauge',
        cw_sends_total: 'counter',
        cw_send_latency_seconds: 'histogram',
        cw_webhook_events_total: 'counter',
        cw_webhook_lag_seconds: 'histogram',
        cw_billable_messages_total: 'counter',
        cw_account_errors_total: 'counter',
        cw_webhook_inbox_entries: 'gauge',
        cw_webhook_replays_dropped_total: 'counter',
        cw_webhook_inbox_full_total: 'counter',
        cw_dashboard_login_refusals_total: 'counter',
      });

      await rig.startWorker();
      const summary = await rig.send();
      expect(summary).toMatchObject({ rows: ROWS, queued: ROWS });
      const id = summary.id;

      // During: every scrape's rows add up to the total, and the counter never goes down.
      const problems: string[] = [];
      let lastAccepted = 0;
      let otherShowedIt = false;
      const mid = await rig.pollUntil(`${MID_SENT} rows sent, by /metrics`, 180_000, 250, async () => {
        const e = await scrape(url);
        const rows = rowsOf(e, id);
        if (Object.keys(rows).length > 0 && rowsByStatusTotal(rows) !== ROWS)
          problems.push(`rows add up to ${rowsByStatusTotal(rows)}: ${JSON.stringify(rows)}`);
        if (accepted(e) < lastAccepted) problems.push(`cw_sends_total went from ${lastAccepted} to ${accepted(e)}`);
        lastAccepted = accepted(e);
        if (!otherShowedIt) otherShowedIt = samplesOf(await scrape(other), 'cw_campaign_rows', { campaign_id: id }).length > 0;
        return (rows.sent ?? 0) >= MID_SENT ? e : undefined;
      });
      const midRows = rowsOf(mid, id);
      const context = JSON.stringify({ midRows, rate: samplesOf(mid, 'cw_send_rate'), jobs: samplesOf(mid, 'cw_queue_jobs') });
      expect(problems).toEqual([]);
      expect(Object.keys(midRows).sort()).toEqual(STATUSES_AND_META);
      expect(rowsByStatusTotal(midRows)).toBe(ROWS);
      // Mid-way: rows are still to be sent.
      const remaining = (midRows.queued ?? 0) + (midRows.sending ?? 0) + (midRows.confirming ?? 0);
      expect(remaining, context).toBeGreaterThan(0);
      // Sending shows in the rate, never above the number's ceiling. How close to it the pace holds is a
      // figure of `npm run bench` (a loaded machine only slows it); the gauge's arithmetic is exact in metrics-scrape.test.ts.
      const rate = valueOf(mid, 'cw_send_rate', { phone_number_id: PHONE_NUMBER_ID });
      expect(rate, context).toBeGreaterThan(0);
      // A tenth over: a request counts in the second its answer came, so a window's edges can hold a few more.
      expect(rate, context).toBeLessThanOrEqual(RATE * 1.1);
      const eta = valueOf(mid, 'cw_campaign_eta_seconds', { campaign_id: id });
      expect(eta, context).toBeGreaterThan(0);
      expect(eta, context).toBeLessThan(600);
      // The number's queue, by state; jobs are in it mid-way (the feeder's window).
      rig.note('mid-way', { rate, eta, midRows });
      const jobs: Record<string, number> = Object.fromEntries(
        samplesOf(mid, 'cw_queue_jobs', { phone_number_id: PHONE_NUMBER_ID }).map((s) => [s.labels.state ?? '', s.value]),
      );
      expect(Object.keys(jobs).sort()).toEqual(['active', 'delayed', 'failed', 'waiting']);
      expect((jobs.waiting ?? 0) + (jobs.active ?? 0) + (jobs.delayed ?? 0), context).toBeGreaterThan(0);
      expect(accepted(mid)).toBeGreaterThan(0);
      expect(valueOf(mid, 'cw_send_latency_seconds_count')).toBeGreaterThan(0);
      expect(otherShowedIt).toBe(true);

      const status: StatusJson = await rig.waitForCompletion(id, 180_000);
      expect(status).toMatchObject({ state: 'completed', total: ROWS, sent: ROWS });

      // After: the last flush (about a second) brings the counter to the rows sent.
      const after = await rig.pollUntil('cw_sends_total{result="accepted"} = rows sent', 30_000, 250, async () => {
        const e = await scrape(url);
        return accepted(e) === status.sent ? e : undefined;
      });
      const afterRows = rowsOf(after, id);
      expect(rowsByStatusTotal(afterRows)).toBe(ROWS);
      expect(afterRows.sent).toBe(status.sent);
      expect(valueOf(after, 'cw_campaign_eta_seconds', { campaign_id: id })).toBe(0);
      // Every request was accepted, and each was timed.
      expect(samplesOf(after, 'cw_sends_total').map((s) => s.labels.result)).toEqual(['accepted']);
      expect(valueOf(after, 'cw_send_latency_seconds_count')).toBe(ROWS);
      expect(valueOf(after, 'cw_send_latency_seconds_bucket', { le: '+Inf' })).toBe(ROWS);
      expect(valueOf(after, 'cw_send_latency_seconds_sum')).toBeGreaterThan(0);

      // The sandbox's status webhooks: every row's `sent` and `delivered` counted, and applied to the rows.
      const delivered = await rig.pollUntil('every status webhook counted and applied', 60_000, 250, async () => {
        const e = await scrape(url);
        const done =
          sumOf(e, 'cw_webhook_events_total', { kind: 'sent' }) >= ROWS &&
          sumOf(e, 'cw_webhook_events_total', { kind: 'delivered' }) >= ROWS &&
          rowsOf(e, id).delivered === ROWS;
        return done ? e : undefined;
      });
      expect(sumOf(delivered, 'cw_webhook_events_total', { kind: 'read' })).toBeGreaterThan(0);
      const lagCount = valueOf(delivered, 'cw_webhook_lag_seconds_count') ?? 0;
      expect(lagCount).toBeGreaterThanOrEqual(2 * ROWS);
      // Meta's timestamps are whole seconds, and the consumer is close behind: none near a minute late.
      expect(valueOf(delivered, 'cw_webhook_lag_seconds_bucket', { le: '60' })).toBe(lagCount);
      // Queued jobs are all done.
      await rig.pollUntil('the queue empty', 30_000, 250, async () => {
        const e = await scrape(url);
        return sumOf(e, 'cw_queue_jobs', { phone_number_id: PHONE_NUMBER_ID }) === 0 ? true : undefined;
      });

      // A signed webhook of our own (a user's message) moves its counter by exactly one.
      const before = sumOf(await scrape(url), 'cw_webhook_events_total', { kind: 'message' });
      expect(await signedPost(other, inboundText('wamid.METRICSINBOUND1'))).toBe(200);
      await rig.pollUntil('the message counted', 30_000, 100, async () => {
        const e = await scrape(url);
        return sumOf(e, 'cw_webhook_events_total', { kind: 'message' }) === before + 1 ? true : undefined;
      });

      // Retention: the short-lived service drops the finished campaign's series; the 24 h one keeps them.
      const gone = await rig.pollUntil('the campaign gone from the short-retention service', 30_000, 250, async () => {
        const e = await scrape(other);
        return samplesOf(e, 'cw_campaign_rows', { campaign_id: id }).length === 0 ? e : undefined;
      });
      expect(samplesOf(gone, 'cw_campaign_eta_seconds', { campaign_id: id })).toEqual([]);
      // Counters are totals, not a campaign's: both services show the same, and they stay.
      const kept = await scrape(url);
      expect(accepted(gone)).toBe(status.sent);
      expect(accepted(kept)).toBe(status.sent);
      expect(rowsByStatusTotal(rowsOf(kept, id))).toBe(ROWS);
    },
    400_000,
  );
});
