import { createHmac } from 'node:crypto';
import { once } from 'node:events';
import { connect, type Socket } from 'node:net';
import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CLOSE_GRACE_MS } from '../../src/http/bounded-close.js';
import { silentLogger } from '../../src/logging/logger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { within } from '../support/waiting.js';

/**
 * `campaign serve` stops within a bound whatever its clients' connections are doing. Node's server.close() waits for
 * every connection and drops only those idle when it is called: a connection that never sent a request (a browser's
 * preconnect) held it forever, and a keep-alive one whose webhook POST was still in flight then held it for fastify's
 * 72 s keep-alive timeout after its answer. These bounds are hang checks, far below those waits, not speed figures.
 */
const SECRET = 'close-idle-app-secret-0123456789';
const BODY = '{"object":"whatsapp_business_account","entry":[]}';
/** Well below the 72 s keep-alive timeout, well above a loaded machine's close of the rest (the consumer's read, Redis). */
const PROMPTLY_MS = 5_000;

describe('the service closes with client connections open', () => {
  const prefix = freshPrefix('close-idle');
  let redis: Redis;
  let service: RunningService;
  const clients: Socket[] = [];

  beforeEach(async () => {
    redis = testRedis();
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', WHATSAPP_APP_SECRET: SECRET, WEBHOOK_VERIFY_TOKEN: 'v' },
      silentLogger(),
    );
  });

  afterEach(async () => {
    // A failed check leaves its connection open: dropped here, so the close can end.
    for (const client of clients.splice(0)) client.destroy();
    await service?.close();
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  /** A raw connection to the service, and what the service sends on it until it closes it. */
  const open = async (): Promise<{ socket: Socket; received: () => string; ended: Promise<void> }> => {
    const socket = connect(service.port, '127.0.0.1');
    clients.push(socket);
    let text = '';
    socket.on('data', (chunk: Buffer) => (text += chunk.toString('latin1')));
    socket.on('error', () => undefined);
    const ended = once(socket, 'close').then(() => undefined);
    await once(socket, 'connect');
    return { socket, received: () => text, ended };
  };

  /** A keep-alive webhook POST's head, signed with `signature` (checked once the body is read: until then it waits for it). */
  const webhookHeaders = (signature: string, length: number) =>
    `POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: keep-alive\r\nContent-Type: application/json\r\n` +
    `X-Hub-Signature-256: sha256=${signature}\r\nContent-Length: ${length}\r\n\r\n`;

  /** Resolves once the service has read the headers of a request (it is routed, its body not yet read). */
  const requestSeen = () => once(service.app.server, 'request').then(() => undefined);

  it('drops at once a connection that never sent a request', async () => {
    const client = await open();
    await within(PROMPTLY_MS, service.close(), () => 'the service did not close with a silent connection open');
    await within(PROMPTLY_MS, client.ended, () => 'the silent connection is still open');
    expect(client.received()).toBe('');
  });

  it('answers a keep-alive POST in flight when it stops, then ends that connection', async () => {
    const client = await open();
    const seen = requestSeen();
    client.socket.write(webhookHeaders(createHmac('sha256', SECRET).update(BODY).digest('hex'), BODY.length) + BODY.slice(0, 10));
    await seen;
    // Stopping with the request in flight: its body arrives after, it is answered, and its connection is not kept alive.
    const closed = service.close();
    client.socket.write(BODY.slice(10));
    await within(PROMPTLY_MS, closed, () => `the service did not close; the client got: ${JSON.stringify(client.received())}`);
    await within(PROMPTLY_MS, client.ended, () => 'the answered connection is still open');
    expect(client.received()).toMatch(/^HTTP\/1\.1 200 /);
  });

  it('cuts a request that never completes once its grace is over', async () => {
    const client = await open();
    const seen = requestSeen();
    client.socket.write(`${webhookHeaders('0'.repeat(64), 1000)}{`);
    await seen;
    const stopping = Date.now();
    await within(CLOSE_GRACE_MS + PROMPTLY_MS, service.close(), () => 'the service did not close with a request never completed');
    // In flight, it had its grace first (a timer's few ms of slack allowed).
    expect(Date.now() - stopping).toBeGreaterThanOrEqual(CLOSE_GRACE_MS - 50);
    await within(PROMPTLY_MS, client.ended, () => 'the connection of the request never completed is still open');
  });
});
