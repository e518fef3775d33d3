import { createHmac } from 'node:crypto';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/logging/logger.js';
import { createServiceMetrics, type ServiceMetrics } from '../../src/metrics/service-metrics.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { WebhookConsumer } from '../../src/webhooks/webhook-consumer.js';
import { RedisWebhookInbox, createWebhookRedis } from '../../src/webhooks/webhook-inbox.js';
import { INBOX_FULL_RETRY_AFTER_SECONDS, REJECTION_LOG_INTERVAL_MS, buildWebhookServer } from '../../src/webhooks/webhook-server.js';
import { CliProcess } from '../support/cli-process.js';
import { capturedLogger, linesWithStacks, parseLogLines, type LogLine } from '../support/log-lines.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { keySlot } from '../support/key-slot.js';
import { waitFor } from '../support/waiting.js';
import { scrape, valueOf } from './metrics-exposition.js';

/**
 * The webhook inbox's bound and replay guard, over real HTTP and real Redis: an exact replay
 * of a body the inbox holds unconsumed is answered 200 and stored once; once consumed, the same
 * body is taken in again; at WEBHOOK_INBOX_MAX the next body is refused with 503 and
 * Retry-After (stored nowhere, counted, logged once per interval) until the consumer works the
 * inbox off; and every body answered 200 reaches the consumer. The consumer here runs only when
 * the test says (processOnce), so "unconsumed" is a state the test holds, not a race.
 */
const SECRET = 'bound-app-secret-0123456789';
const MAX = 3;

function statusBody(id: string): Buffer {
  return Buffer.from(
    `{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":{"messaging_product":"whatsapp",` +
      `"metadata":{"display_phone_number":"15550783881","phone_number_id":"106540352242922"},` +
      `"statuses":[{"id":"${id}","status":"sent","timestamp":"1750263773","recipient_id":"16505551234"}]},"field":"messages"}]}]}`,
  );
}

function post(url: string, body: Buffer): Promise<Response> {
  const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
  return fetch(`${url}/webhook`, {
    method: 'POST',
    body,
    headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
  });
}

describe('the webhook inbox: replays dropped, bounded by WEBHOOK_INBOX_MAX', () => {
  let prefix: string;
  let reader: Redis;
  let inboxRedis: Redis;
  let metricsRedis: Redis;
  let app: FastifyInstance;
  let url: string;
  let metrics: ServiceMetrics;
  let consumer: WebhookConsumer;
  let log: { lines: LogLine[] };
  let clock: number;
  /** Every body the consumer was handed (read from the stream before each round). */
  let consumed: Set<string>;

  beforeEach(async () => {
    prefix = freshPrefix('webhook-bound');
    reader = testRedis();
    metricsRedis = testRedis();
    inboxRedis = createWebhookRedis(redisUrl(), silentLogger()) as Redis;
    await new Promise((resolve) => inboxRedis.once('ready', resolve));
    const captured = capturedLogger();
    log = captured;
    clock = 1_000_000;
    consumed = new Set();
    const inbox = new RedisWebhookInbox(inboxRedis, prefix, { max: MAX });
    metrics = createServiceMetrics({
      redis: metricsRedis,
      prefix,
      retentionMs: 3_600_000,
      sendRate: () => 80,
      ledger: new RedisLedger(metricsRedis, prefix),
    });
    app = buildWebhookServer({
      inbox,
      verifyToken: new Secret('bound-verify-token'),
      appSecrets: [new Secret(SECRET)],
      logger: captured.logger,
      redisReady: () => inbox.ready(),
      now: () => clock,
      metrics,
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    url = `http://127.0.0.1:${address.port}`;
    consumer = new WebhookConsumer({
      redis: reader,
      prefix,
      ledger: new RedisLedger(reader, prefix),
      logger: silentLogger(),
      consumer: 'bound-test',
      blockMs: 10,
    });
  });

  afterEach(async () => {
    await app.close();
    await metrics.close();
    await removePrefix(reader, prefix);
    await inboxRedis.quit();
    await metricsRedis.quit();
    await reader.quit();
  });

  const keys = () => webhookKeys(prefix);
  const held = () => reader.xlen(keys().inbox);

  /** The consumer works the inbox off (what it is handed is noted first), until it is empty. */
  async function drain(): Promise<void> {
    for (const [, fields] of await reader.xrange(keys().inbox, '-', '+')) consumed.add(fields[fields.indexOf('body') + 1] ?? '');
    while ((await held()) > 0) await consumer.processOnce();
  }

  it('a replay while the first is unconsumed is stored once (200, counted); consumed, the same body is taken in again', async () => {
    const body = statusBody('wamid.replayed');

    for (let i = 0; i < 3; i++) expect((await post(url, body)).status).toBe(200);

    expect(await held()).toBe(1);
    expect(await reader.hlen(keys().held)).toBe(1);
    // One script touches them all: on a cluster they must share a slot.
    const { inbox, held: signatures, intake, stats } = keys();
    expect(new Set([inbox, signatures, intake, stats].map(keySlot)).size).toBe(1);
    let exposed = await scrape(url);
    expect(valueOf(exposed, 'cw_webhook_replays_dropped_total')).toBe(2);
    expect(valueOf(exposed, 'cw_webhook_inbox_entries')).toBe(1);

    await drain();
    // Its signature goes with its entry: Meta does resend a body, and that is new work.
    expect(await reader.hlen(keys().held)).toBe(0);
    expect((await post(url, body)).status).toBe(200);
    expect(await held()).toBe(1);
    exposed = await scrape(url);
    expect(valueOf(exposed, 'cw_webhook_replays_dropped_total')).toBe(2);
    expect(await reader.hget(keys().stats, 'posts')).toBe('1');
  });

  it('at WEBHOOK_INBOX_MAX: 503 with Retry-After, nothing stored, counted, logged once per interval; drained, intake resumes', async () => {
    const answered = new Map<string, number>();
    const send = async (id: string): Promise<Response> => {
      const response = await post(url, statusBody(id));
      if (response.status === 200) answered.set(statusBody(id).toString(), 200);
      return response;
    };
    for (const id of ['wamid.1', 'wamid.2', 'wamid.3']) expect((await send(id)).status).toBe(200);

    const refused = await send('wamid.4');
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe(String(INBOX_FULL_RETRY_AFTER_SECONDS));
    expect((await send('wamid.5')).status).toBe(503);
    expect(await held()).toBe(MAX);
    // A replay of a body it holds is still 200: Meta must not retry what is stored.
    expect((await send('wamid.1')).status).toBe(200);
    expect(await held()).toBe(MAX);

    let exposed = await scrape(url);
    expect(valueOf(exposed, 'cw_webhook_inbox_full_total')).toBe(2);
    expect(valueOf(exposed, 'cw_webhook_inbox_entries')).toBe(MAX);
    const full = () => log.lines.filter((line) => String(line.msg).includes('webhook inbox full'));
    expect(full()).toHaveLength(1);
    expect(full()[0]).toMatchObject({ level: 40, held: MAX });
    clock += REJECTION_LOG_INTERVAL_MS;
    expect((await send('wamid.6')).status).toBe(503);
    expect(full()).toHaveLength(2);
    expect(full()[1]).toMatchObject({ suppressed: 1 });

    await drain();
    for (const id of ['wamid.4', 'wamid.5', 'wamid.6']) expect((await send(id)).status).toBe(200);
    await drain();

    exposed = await scrape(url);
    expect(valueOf(exposed, 'cw_webhook_inbox_full_total')).toBe(3);
    expect(valueOf(exposed, 'cw_webhook_inbox_entries')).toBe(0);
    expect(valueOf(exposed, 'cw_webhook_replays_dropped_total')).toBe(1);
    // Nothing answered 200 is missing: each such body reached the consumer.
    expect([...answered.keys()].filter((body) => !consumed.has(body))).toEqual([]);
    expect(answered.size).toBe(6);
    expect(await reader.hget(keys().stats, 'posts')).toBe('6');
    expect(linesWithStacks(log.lines)).toEqual([]);
  });

  it('concurrent POSTs: the bound holds and a body is stored once, whatever the interleaving', async () => {
    const bodies = Array.from({ length: 12 }, (_, i) => statusBody(`wamid.c${i}`));
    const replays = Array.from({ length: 8 }, () => statusBody('wamid.c0'));

    const statuses = await Promise.all([...bodies, ...replays].map(async (body) => ({ body, status: (await post(url, body)).status })));

    const stored = (await reader.xrange(keys().inbox, '-', '+')).map(([, fields]) => fields[fields.indexOf('body') + 1] ?? '');
    expect(stored).toHaveLength(MAX);
    expect(new Set(stored).size).toBe(MAX);
    // Each body answered 200 is stored, each answered 503 is not, and no answer is anything else.
    for (const { body, status } of statuses) {
      expect([200, 503]).toContain(status);
      expect(stored.includes(body.toString()), `${status} for a body ${status === 200 ? 'not ' : ''}stored`).toBe(status === 200);
    }
  });
});

describe('campaign serve reads WEBHOOK_INBOX_MAX', () => {
  let cli: CliProcess | undefined;
  let redis: Redis;
  let prefix: string;

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('webhook-bound-serve');
  });

  afterEach(async () => {
    await cli?.stop('SIGKILL');
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('2 entries held by another consumer and WEBHOOK_INBOX_MAX=2: 503 and counted; worked off there, 200 and applied here', async () => {
    // Entries another `serve`'s consumer has read and not yet acknowledged: this one takes them over only after 30 s.
    const { inbox, stats } = webhookKeys(prefix);
    await redis.xgroup('CREATE', inbox, 'appliers', '0', 'MKSTREAM');
    for (const id of ['wamid.a', 'wamid.b']) await redis.xadd(inbox, '*', 'body', statusBody(id), 'at', String(Date.now()));
    const read = (await redis.xreadgroup('GROUP', 'appliers', 'elsewhere', 'COUNT', 2, 'STREAMS', inbox, '>')) as [string, [string][]][];
    const ids = read[0]?.[1].map(([id]) => id) ?? [];
    expect(ids).toHaveLength(2);
    cli = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_APP_SECRET: SECRET,
      WEBHOOK_VERIFY_TOKEN: 'bound-verify-token',
      WEBHOOK_INBOX_MAX: '2',
      LOG_LEVEL: 'info',
    });
    const url = (await cli.waitFor(/Webhook service listening on (http:\/\/127\.0\.0\.1:\d+)/))[1] ?? '';

    const refused = await post(url, statusBody('wamid.c'));
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe(String(INBOX_FULL_RETRY_AFTER_SECONDS));
    const exposed = await scrape(url);
    expect(valueOf(exposed, 'cw_webhook_inbox_full_total')).toBe(1);
    expect(valueOf(exposed, 'cw_webhook_inbox_entries')).toBe(2);

    await redis
      .multi()
      .xack(inbox, 'appliers', ...ids)
      .xdel(inbox, ...ids)
      .exec();
    expect((await post(url, statusBody('wamid.c'))).status).toBe(200);
    await waitFor(() => redis.hget(stats, 'posts'), { what: "serve's consumer applied the body", until: (posts) => posts === '1' });
    expect(await cli.stop('SIGTERM')).toBe(0);
    const full = parseLogLines(cli.output).filter((line) => String(line.msg).includes('webhook inbox full'));
    expect(full).toHaveLength(1);
    expect(linesWithStacks(parseLogLines(cli.output))).toEqual([]);
  });
});
