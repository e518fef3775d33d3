import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/campaigns/report/report.js';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/logging/logger.js';
import { WebhookConsumer } from '../../src/webhooks/webhook-consumer.js';
import { RedisWebhookInbox, createWebhookRedis } from '../../src/webhooks/webhook-inbox.js';
import { buildWebhookServer } from '../../src/webhooks/webhook-server.js';
import { writeCampaignCsv } from '../support/csv-files.js';
import { pipelinePerTest, type Pipeline } from '../support/pipeline.js';
import { redisUrl, testRedis } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

/**
 * Held sends through the real pipeline: the sandbox holds a share of template sends for
 * quality assessment (the `held` fault) and later posts their signed status webhooks; the
 * webhook service and its consumer (as `campaign serve` runs them) settle the `held` rows.
 * The campaign is not completed while any row is held.
 */
const SECRET = 'held-sends-app-secret-0123';
const RELEASE_MS = 1500;

describe('held sends settle by webhook (real Redis, worker, webhook service, sandbox)', () => {
  const frame = pipelinePerTest();
  const closers: (() => Promise<unknown>)[] = [];

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /**
   * The sandbox needs its webhook URL before it starts, the service needs the pipeline's
   * prefix: a receiver on a known port forwards each POST, signature and all, once the service is up.
   */
  async function forwarder(): Promise<{ url: string; target: { url?: string } }> {
    const target: { url?: string } = {};
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (target.url === undefined) return void res.writeHead(503).end();
        fetch(target.url, {
          method: 'POST',
          body: Buffer.concat(chunks),
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': String(req.headers['x-hub-signature-256']) },
        }).then(
          (answer) => res.writeHead(answer.status).end(),
          () => res.writeHead(502).end(),
        );
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
    closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return { url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`, target };
  }

  /** The webhook service's intake and a running consumer, as `campaign serve` has them. */
  async function startService(p: Pipeline): Promise<string> {
    const inboxRedis = createWebhookRedis(redisUrl(), silentLogger());
    closers.push(() => inboxRedis.quit());
    if (inboxRedis.status !== 'ready') await new Promise((resolve) => inboxRedis.once('ready', resolve));
    const inbox = new RedisWebhookInbox(inboxRedis, p.prefix);
    const app: FastifyInstance = buildWebhookServer({
      inbox,
      verifyToken: new Secret('held-verify-token'),
      appSecrets: [new Secret(SECRET)],
      logger: silentLogger(),
      redisReady: () => inbox.ready(),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const reader = testRedis();
    closers.push(() => reader.quit());
    const consumer = new WebhookConsumer({
      redis: reader,
      prefix: p.prefix,
      ledger: p.ledger,
      logger: silentLogger(),
      consumer: 'held-test',
      blockMs: 100,
      parkedRetryMs: 0,
    });
    consumer.start();
    closers.push(() => consumer.stop());
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return `http://127.0.0.1:${address.port}/webhook`;
  }

  async function reportRows(p: Pipeline, id: string): Promise<Record<string, string>[]> {
    const path = frame.csvPath(`${id}.report.csv`);
    await writeReport(p.ledger, id, path);
    return parse<Record<string, string>>(await readFile(path, 'utf8'), { columns: true });
  }

  it('held rows keep the campaign open until their webhooks come: one released (sent), one dropped (failed 132015)', async () => {
    const relay = await forwarder();
    const p = await frame.start({
      label: 'held',
      concurrency: 4,
      sandbox: {
        webhooks: { url: relay.url, appSecret: SECRET, sentAfterMs: 5, deliveredAfterMs: 20, readAfterMs: 40, readShare: 0, batchMs: 10 },
        // Every second template send is held; every second held one is dropped.
        faults: { held: { share: 0.5, releaseAfterMs: RELEASE_MS, dropShare: 0.5 } },
      },
    });
    relay.target.url = await startService(p);
    const file = frame.csvPath();
    await writeCampaignCsv(file, 4);
    expect(await p.produce(file, p.definition('c-held'))).toMatchObject({ queued: 4 });
    p.startWorker();

    // Every row answered: two sent (their webhooks came), two held. Not completed.
    const answered = await waitFor(async () => (await p.ledger.status('c-held'))?.counts, {
      what: 'two rows sent and delivered, two held',
      until: (c) => c !== undefined && c.held === 2 && c.sent === 2 && c.delivered === 2,
      timeoutMs: RELEASE_MS - 300,
      intervalMs: 20,
    });
    expect(answered).toMatchObject({ queued: 0, sending: 0, failed: 0, unknown: 0 });
    const waiting = await p.ledger.status('c-held');
    expect(waiting?.state).toBe('running');
    expect(waiting?.finishedAt).toBeUndefined();
    const heldAccepted = p.sandbox.accepted().filter((m) => m.heldForMs !== undefined);
    expect(heldAccepted).toHaveLength(2);
    const report = await reportRows(p, 'c-held');
    expect(report.map((r) => r.status).sort()).toEqual(['held', 'held', 'sent', 'sent']);
    const heldWamids = report.filter((r) => r.status === 'held').map((r) => r.message_id);
    expect(heldWamids.sort()).toEqual(heldAccepted.map((m) => m.wamid).sort());

    // Their webhooks settle them: the campaign completes.
    const done = await waitFor(async () => p.ledger.status('c-held'), {
      what: 'campaign c-held completed once its held rows settled',
      until: (s) => s?.state === 'completed',
      timeoutMs: RELEASE_MS + 5000,
    });
    expect(done?.counts).toMatchObject({ held: 0, sent: 3, failed: 1, unknown: 0, delivered: 3 });
    expect(done?.pausedReason).toBeUndefined();
    const dropped = heldAccepted.find((m) => m.failure !== undefined);
    const rows = await p.report('c-held');
    const failed = rows.filter((r) => r.status === 'failed');
    expect(failed.map((r) => [r.wamid, r.errorCode])).toEqual([[dropped?.wamid, '132015']]);
    expect(failed[0]?.errorDetail).toMatch(/held for quality assessment and dropped/);
    const released = heldAccepted.find((m) => m.failure === undefined);
    expect(rows.find((r) => r.wamid === released?.wamid)).toMatchObject({ status: 'sent' });
    expect(rows.find((r) => r.wamid === released?.wamid)?.deliveredAt).toBeGreaterThan(0);
  });
});
