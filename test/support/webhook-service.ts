import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { FastifyInstance } from 'fastify';
import type { DeliveryLedger } from '../../src/campaigns/ledger.js';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/logging/logger.js';
import { WebhookConsumer } from '../../src/webhooks/webhook-consumer.js';
import { RedisWebhookInbox, createWebhookRedis } from '../../src/webhooks/webhook-inbox.js';
import { buildWebhookServer } from '../../src/webhooks/webhook-server.js';
import { redisUrl, testRedis } from './redis.js';

/**
 * `campaign serve`'s webhook path in this process: the intake (signature checked, body into the
 * inbox) and a running consumer that applies each POST to the ledger. `relay()` gives a URL to
 * hand the sandbox before the service exists (the sandbox needs its webhook URL when it starts,
 * the service needs the ledger's prefix): each POST is forwarded, signature and all, once
 * `start` has run (503 before, which the sandbox's poster retries).
 */
export class WebhookService {
  readonly #closers: (() => Promise<unknown>)[] = [];
  #url: string | undefined;

  constructor(private readonly appSecret: string) {}

  async relay(): Promise<string> {
    const server: Server = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        if (this.#url === undefined) return void res.writeHead(503).end();
        fetch(this.#url, {
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
    this.#closers.push(() => new Promise<void>((resolve) => server.close(() => resolve())));
    return `http://127.0.0.1:${(server.address() as AddressInfo).port}/webhook`;
  }

  /** Starts the intake and the consumer for the ledger under `prefix`; returns the intake's /webhook URL. */
  async start(prefix: string, ledger: DeliveryLedger): Promise<string> {
    const inboxRedis = createWebhookRedis(redisUrl(), silentLogger());
    this.#closers.push(() => inboxRedis.quit());
    if (inboxRedis.status !== 'ready') await new Promise((resolve) => inboxRedis.once('ready', resolve));
    const inbox = new RedisWebhookInbox(inboxRedis, prefix);
    const app: FastifyInstance = buildWebhookServer({
      inbox,
      verifyToken: new Secret('test-verify-token'),
      appSecrets: [new Secret(this.appSecret)],
      logger: silentLogger(),
      redisReady: () => inbox.ready(),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    this.#closers.push(() => app.close());
    const reader = testRedis();
    this.#closers.push(() => reader.quit());
    const consumer = new WebhookConsumer({
      redis: reader,
      prefix,
      ledger,
      logger: silentLogger(),
      consumer: 'test',
      blockMs: 100,
      parkedRetryMs: 0,
    });
    consumer.start();
    this.#closers.push(() => consumer.stop());
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    this.#url = `http://127.0.0.1:${address.port}/webhook`;
    return this.#url;
  }

  async close(): Promise<void> {
    for (const close of this.#closers.splice(0).reverse()) await close();
  }
}
