import { Queue } from 'bullmq';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { IngestedRow } from '../../src/campaigns/ledger.js';
import { RedisSendRecorder } from '../../src/redis/metrics/redis-send-recorder.js';
import { createServiceMetrics } from '../../src/metrics/service-metrics.js';
import { WebhookMetrics } from '../../src/redis/webhooks/webhook-metrics.js';
import { silentLogger } from '../../src/logging/logger.js';
import { sendQueueName, sendQueuePrefix } from '../../src/queue/queue-names.js';
import { RedisLedger, campaignLedgerKeys } from '../../src/redis/ledger/redis-ledger.js';
import { startService } from '../../workers/serve.js';
import { phoneNumber } from '../support/csv-files.js';
import { RedisServer } from '../support/fault-redis-server.js';
import { waitFor, within } from '../support/waiting.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';
import { UNIT_NUMBER, orderUpdateDefinition } from '../support/unit-campaigns.js';
import { parseExposition, samplesOf, scrape, sumOf, valueOf, type Exposition } from './metrics-exposition.js';
import { metricsKeys } from '../../src/redis/metrics/metric-keys.js';

/**
 * The metrics' Redis side on a real Redis: what workers' recorders and the webhook consumer
 * add up, read back by the service's scrape with a clock the test sets. (The whole path, with
 * a worker process, is in metrics-campaign.test.ts.)
 */
const NOW = Date.parse('2026-12-01T08:00:00Z');
const SECOND = Math.floor(NOW / 1000);

const queued = (row: number): IngestedRow => ({
  row,
  phone: phoneNumber(row),
  status: 'queued',
  message: { values: [`N${row}`, `A-${row}`], headerLink: undefined, fingerprint: `fp-${row}` },
});
const rejected = (row: number): IngestedRow => ({
  row,
  phone: phoneNumber(row),
  status: 'rejected',
  errorCode: 'PHONE_INVALID',
  errorDetail: 'bad',
});

describe('metrics in Redis, read at scrape time', () => {
  let redis: Redis;
  let prefix: string;
  let closers: (() => Promise<unknown>)[];

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('metrics-scrape');
    closers = [];
  });

  afterEach(async () => {
    for (const close of closers.reverse()) await close();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  async function scrapeAt(now: number, retentionMs = 3_600_000): Promise<Exposition> {
    // SEND_RATE 2/s: the ETA of a campaign with no answer yet.
    const metrics = createServiceMetrics({
      redis,
      prefix,
      retentionMs,
      now: () => now,
      sendRate: () => 2,
      ledger: new RedisLedger(redis, prefix),
    });
    try {
      return parseExposition((await metrics.scrape()).body);
    } finally {
      await metrics.close();
    }
  }

  it("two workers' sends add up: counters, latency histogram, and the rate over the 10 complete seconds before the last", async () => {
    let clock = NOW;
    const workerA = new RedisSendRecorder(redis, prefix, { now: () => clock });
    const workerB = new RedisSendRecorder(redis, prefix, { now: () => clock });
    // Seconds SECOND-11 … SECOND-2 are the window at NOW: 10 requests in each, 5 from each worker.
    for (let s = SECOND - 11; s <= SECOND - 2; s++) {
      clock = s * 1000 + 500;
      for (let i = 0; i < 5; i++) workerA.recordSend(UNIT_NUMBER, 'accepted', 0.04);
      for (let i = 0; i < 5; i++) workerB.recordSend(UNIT_NUMBER, 'accepted', 0.2);
    }
    // Outside the window: before it, and the last second (not all flushed yet at NOW).
    clock = (SECOND - 12) * 1000;
    for (let i = 0; i < 300; i++) workerA.recordSend(UNIT_NUMBER, '131026', 3);
    clock = (SECOND - 1) * 1000;
    for (let i = 0; i < 200; i++) workerB.recordSend(UNIT_NUMBER, 'TRANSPORT_TIMEOUT', 20);
    await Promise.all([workerA.flush(), workerB.flush()]);

    // A number needs a campaign to have its rate shown.
    const ledger = new RedisLedger(redis, prefix);
    await ledger.createCampaign(orderUpdateDefinition('m1', { createdAt: NOW }));

    const e = await scrapeAt(NOW);
    expect(valueOf(e, 'cw_sends_total', { phone_number_id: UNIT_NUMBER, result: 'accepted' })).toBe(100);
    expect(valueOf(e, 'cw_sends_total', { phone_number_id: UNIT_NUMBER, result: '131026' })).toBe(300);
    expect(valueOf(e, 'cw_sends_total', { phone_number_id: UNIT_NUMBER, result: 'TRANSPORT_TIMEOUT' })).toBe(200);
    expect(valueOf(e, 'cw_send_rate', { phone_number_id: UNIT_NUMBER })).toBe(10);
    // Cumulative buckets: 50 at 0.04 s, 50 at 0.2 s, 300 at 3 s, 200 at 20 s.
    expect(valueOf(e, 'cw_send_latency_seconds_bucket', { le: '0.05' })).toBe(50);
    expect(valueOf(e, 'cw_send_latency_seconds_bucket', { le: '0.25' })).toBe(100);
    expect(valueOf(e, 'cw_send_latency_seconds_bucket', { le: '5' })).toBe(400);
    expect(valueOf(e, 'cw_send_latency_seconds_bucket', { le: '15' })).toBe(400);
    expect(valueOf(e, 'cw_send_latency_seconds_bucket', { le: '30' })).toBe(600);
    expect(valueOf(e, 'cw_send_latency_seconds_bucket', { le: '+Inf' })).toBe(600);
    expect(valueOf(e, 'cw_send_latency_seconds_count')).toBe(600);
    expect(valueOf(e, 'cw_send_latency_seconds_sum')).toBeCloseTo(50 * 0.04 + 50 * 0.2 + 300 * 3 + 200 * 20, 6);

    // More sends later: the counters only grow (Redis totals), and a flush with nothing new writes nothing.
    workerA.recordSend(UNIT_NUMBER, 'accepted', 0.01);
    await workerA.flush();
    await workerB.flush();
    const later = await scrapeAt(NOW + 1000);
    expect(valueOf(later, 'cw_sends_total', { phone_number_id: UNIT_NUMBER, result: 'accepted' })).toBe(101);
    // Per-second counts expire (they are only read for the last few seconds).
    const ttl = await redis.ttl(metricsKeys(prefix).rate(UNIT_NUMBER, SECOND - 5));
    expect(ttl).toBeGreaterThan(0);
    expect(ttl).toBeLessThanOrEqual(60);
  });

  it(
    'campaign rows by status come from the campaign hash, ETA from SEND_RATE then the achieved ' +
      'rate; a finished campaign goes after retention',
    async () => {
      const ledger = new RedisLedger(redis, prefix);
      // Running: 6 queued rows (2 fed and answered below), 2 rejected.
      await ledger.createCampaign(orderUpdateDefinition('run', { createdAt: NOW }));
      await ledger.recordIngested('run', UNIT_NUMBER, [1, 2, 3, 4, 5, 6].map(queued).concat([rejected(7), rejected(8)]));
      await ledger.finishIngest('run');
      // Every row rejected: finished at finishIngest.
      await ledger.createCampaign(orderUpdateDefinition('done', { createdAt: NOW }));
      await ledger.recordIngested('done', UNIT_NUMBER, [rejected(1), rejected(2), rejected(3)]);
      await ledger.finishIngest('done');

      const before = await scrapeAt(Date.now());
      const rows = (id: string, e: Exposition): Record<string, number> =>
        Object.fromEntries(samplesOf(e, 'cw_campaign_rows', { campaign_id: id }).map((s) => [s.labels.status ?? '', s.value]));
      expect(rows('run', before)).toEqual({
        queued: 6,
        sending: 0,
        confirming: 0,
        held: 0,
        sent: 0,
        failed: 0,
        rejected: 2,
        skipped: 0,
        unknown: 0,
        cancelled: 0,
        expired: 0,
        delivered: 0,
        read: 0,
      });
      // Not started (nothing fed): no rate achieved, so 6 rows at the number's SEND_RATE (2/s) → 3 s.
      expect(valueOf(before, 'cw_campaign_eta_seconds', { campaign_id: 'run' })).toBe(3);
      expect(valueOf(before, 'cw_campaign_eta_seconds', { campaign_id: 'done' })).toBe(0);
      // The number's queue, by state (empty here).
      expect(
        samplesOf(before, 'cw_queue_jobs', { phone_number_id: UNIT_NUMBER })
          .map((s) => s.labels.state)
          .sort(),
      ).toEqual(['active', 'delayed', 'failed', 'waiting']);

      // Fed and two rows answered: 2 answered in the 10 s since the first feed, 4 to go → 20 s.
      const fed = await ledger.feed(UNIT_NUMBER, { windowSize: 2, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
      expect(fed.jobs).toHaveLength(2);
      for (const job of fed.jobs) {
        const claim = await ledger.claim(job, UNIT_NUMBER);
        expect(claim.outcome).toBe('claimed');
        await ledger.settle(job, { status: 'sent', wamid: `wamid.${job.row}` }, UNIT_NUMBER);
      }
      const startedAt = (await ledger.status('run'))?.startedAt ?? 0;
      expect(startedAt).toBeGreaterThan(0);
      const running = await scrapeAt(startedAt + 10_000);
      expect(rows('run', running)).toMatchObject({ queued: 4, sent: 2, rejected: 2 });
      expect(valueOf(running, 'cw_campaign_eta_seconds', { campaign_id: 'run' })).toBeCloseTo(20, 6);

      // Retention (1 h here): shown until an hour after it finished, then gone; the running one stays.
      const finishedAt = (await ledger.status('done'))?.finishedAt ?? 0;
      expect(finishedAt).toBeGreaterThan(0);
      expect(samplesOf(await scrapeAt(finishedAt + 3_599_999), 'cw_campaign_rows', { campaign_id: 'done' })).toHaveLength(13);
      const gone = await scrapeAt(finishedAt + 3_600_000);
      expect(samplesOf(gone, 'cw_campaign_rows', { campaign_id: 'done' })).toEqual([]);
      expect(samplesOf(gone, 'cw_campaign_eta_seconds', { campaign_id: 'done' })).toEqual([]);
      expect(sumOf(gone, 'cw_campaign_rows', { campaign_id: 'run' })).toBe(8);

      // A campaign listed whose hash is gone has no series (and the others still have theirs).
      await redis.del(campaignLedgerKeys(prefix, UNIT_NUMBER, 'run').campaign);
      const hashless = await scrapeAt(finishedAt);
      expect(samplesOf(hashless, 'cw_campaign_rows', { campaign_id: 'run' })).toEqual([]);
      expect(samplesOf(hashless, 'cw_campaign_rows', { campaign_id: 'done' })).toHaveLength(13);
    },
  );

  it("queue gauges are BullMQ's counts for the number's queue; webhook kinds and lag go in the MULTI given", async () => {
    const ledger = new RedisLedger(redis, prefix);
    await ledger.createCampaign(orderUpdateDefinition('q', { createdAt: NOW }));
    const queue = new Queue(sendQueueName(UNIT_NUMBER), { connection: redis, prefix: sendQueuePrefix(prefix, UNIT_NUMBER) });
    closers.push(() => queue.close());
    await queue.addBulk([
      { name: 'send', data: {} },
      { name: 'send', data: {} },
      { name: 'send', data: {}, opts: { delay: 60_000 } },
    ]);

    const webhooks = new WebhookMetrics(prefix);
    webhooks.count('delivered', 3);
    webhooks.count('message');
    webhooks.observeLag(NOW - 2000, NOW);
    webhooks.observeLag(NOW - 90_000, NOW);
    const tx = redis.multi();
    webhooks.drainInto(tx);
    await tx.exec();
    // Drained: a second MULTI adds nothing.
    const again = redis.multi();
    webhooks.drainInto(again);
    await again.exec();

    const e = await scrapeAt(Date.now());
    expect(valueOf(e, 'cw_queue_jobs', { phone_number_id: UNIT_NUMBER, state: 'waiting' })).toBe(2);
    expect(valueOf(e, 'cw_queue_jobs', { phone_number_id: UNIT_NUMBER, state: 'delayed' })).toBe(1);
    expect(valueOf(e, 'cw_queue_jobs', { phone_number_id: UNIT_NUMBER, state: 'active' })).toBe(0);
    expect(valueOf(e, 'cw_webhook_events_total', { kind: 'delivered' })).toBe(3);
    expect(valueOf(e, 'cw_webhook_events_total', { kind: 'message' })).toBe(1);
    expect(valueOf(e, 'cw_webhook_lag_seconds_bucket', { le: '2' })).toBe(1);
    expect(valueOf(e, 'cw_webhook_lag_seconds_bucket', { le: '60' })).toBe(1);
    expect(valueOf(e, 'cw_webhook_lag_seconds_bucket', { le: '120' })).toBe(2);
    expect(valueOf(e, 'cw_webhook_lag_seconds_count')).toBe(2);
    expect(valueOf(e, 'cw_webhook_lag_seconds_sum')).toBe(92);
  });
});

describe('GET /metrics while Redis is away', () => {
  let server: RedisServer | undefined;

  afterEach(async () => {
    await server?.cleanup();
    server = undefined;
  });

  it("a worker's flush that Redis did not take keeps its counts for the next one", async () => {
    server = await RedisServer.start();
    const prefix = freshPrefix('metrics-flush');
    const { Redis } = await import('ioredis');
    // Fail-fast, so the failed flush is seen here (a worker's connection would instead wait for Redis).
    const connection = new Redis(server.url, { maxRetriesPerRequest: 0, enableOfflineQueue: false, retryStrategy: () => 100 });
    connection.on('error', () => undefined);
    const ready = () =>
      within(
        10_000,
        new Promise((resolve) => (connection.status === 'ready' ? resolve(undefined) : connection.once('ready', resolve))),
        () => `connection ${connection.status}`,
      );
    try {
      await ready();
      const recorder = new RedisSendRecorder(connection, prefix);
      recorder.recordSend(UNIT_NUMBER, 'accepted', 0.1);
      await recorder.flush();
      await server.stop('SIGKILL');
      recorder.recordSend(UNIT_NUMBER, 'accepted', 0.1);
      recorder.recordSend(UNIT_NUMBER, '131049', 0.1);
      await recorder.flush();
      await server.launch();
      await ready();
      recorder.recordSend(UNIT_NUMBER, 'accepted', 0.1);
      await recorder.close();
      expect(await connection.hgetall(metricsKeys(prefix).sends)).toEqual({
        [`${UNIT_NUMBER}|accepted`]: '3',
        [`${UNIT_NUMBER}|131049`]: '1',
      });
      expect(await connection.hget(metricsKeys(prefix).sendLatency, 'count')).toBe('4');
    } finally {
      connection.disconnect();
    }
  });

  it('answers 503 (a failed scrape) at once, and figures again once Redis is back', async () => {
    server = await RedisServer.start();
    const prefix = freshPrefix('metrics-away');
    const service = await startService(
      { port: 0, host: '127.0.0.1' },
      {
        REDIS_URL: server.url,
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'silent',
        WHATSAPP_APP_SECRET: 'away-secret',
        WEBHOOK_VERIFY_TOKEN: 'away-token',
      },
      silentLogger(),
    );
    try {
      const { Redis } = await import('ioredis');
      const setup = new Redis(server.url, { maxRetriesPerRequest: 1 });
      await new RedisLedger(setup, prefix).createCampaign(orderUpdateDefinition('away', { createdAt: NOW }));
      setup.disconnect();
      const up = await scrape(service.url);
      expect(samplesOf(up, 'cw_queue_jobs', { phone_number_id: UNIT_NUMBER })).toHaveLength(4);

      await server.stop('SIGKILL');
      // Fail-fast: an answer, not a scrape that hangs until Prometheus's timeout (a hang fails the test by its timeout).
      const away = await fetch(`${service.url}/metrics`);
      expect(away.status).toBe(503);

      await server.launch();
      const back = await waitFor(
        async () => {
          const response = await fetch(`${service.url}/metrics`);
          return response.status === 200 ? parseExposition(await response.text()) : undefined;
        },
        { what: 'GET /metrics answering 200 again after Redis came back', timeoutMs: 30_000, intervalMs: 200 },
      );
      expect(samplesOf(back, 'cw_campaign_rows', { campaign_id: 'away' })).toHaveLength(13);
      expect(samplesOf(back, 'cw_queue_jobs', { phone_number_id: UNIT_NUMBER })).toHaveLength(4);
    } finally {
      await service.close();
    }
  });
});
