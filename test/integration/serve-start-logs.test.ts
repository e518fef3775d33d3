import { createServer, connect, type Server, type Socket } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Redis } from 'ioredis';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { startService } from '../../workers/serve.js';
import { CliProcess } from '../support/cli-process.js';
import { capturedLogger, linesWithStacks, parseLogLines } from '../support/log-lines.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { postSignedWebhook } from '../support/signed-webhook.js';
import { waitFor } from '../support/waiting.js';

/**
 * `campaign serve` starting with Redis up logs no stack: its connections refuse commands
 * until they are up (no offline queue), so nothing may be sent on one before it is; an
 * empty inbox at start is not an error. Checked as an operator runs it (the process, its
 * log parsed), and in this process behind a proxy that holds every connection until the
 * service listens, which makes "not up yet" certain instead of a matter of timing.
 */
const SECRET = 'start-logs-app-secret-0123456789';
const LISTENING = /Webhook service listening on (http:\/\/127\.0\.0\.1:\d+)/;
const EMPTY_WEBHOOK = '{"object":"whatsapp_business_account","entry":[]}';

function env(redis: string, prefix: string): Record<string, string> {
  return {
    REDIS_URL: redis,
    QUEUE_PREFIX: prefix,
    WHATSAPP_APP_SECRET: SECRET,
    WEBHOOK_VERIFY_TOKEN: 'start-logs-verify',
    LOG_LEVEL: 'info',
  };
}

/**
 * A TCP proxy to Redis that forwards nothing, either way, until `release()`: clients connect
 * at once (Redis is there) but none is ready before the test says so.
 */
async function heldProxy(target: URL): Promise<{ url: string; release(): void; close(): Promise<void> }> {
  const sockets = new Set<Socket>();
  const waiting: (() => void)[] = [];
  let released = false;
  const server: Server = createServer((client) => {
    sockets.add(client);
    const upstream = connect(Number(target.port || 6379), target.hostname);
    sockets.add(upstream);
    client.pause();
    const join = () => {
      client.pipe(upstream);
      upstream.pipe(client);
      client.resume();
    };
    if (released) join();
    else waiting.push(join);
    for (const socket of [client, upstream]) {
      socket.on('error', () => undefined);
      socket.on('close', () => {
        client.destroy();
        upstream.destroy();
      });
    }
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', () => resolve()));
  const url = new URL(target);
  url.host = `127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: url.toString(),
    release: () => {
      released = true;
      for (const join of waiting.splice(0)) join();
    },
    close: async () => {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}

describe('campaign serve starts without a stack in its log', () => {
  let reader: Redis;
  let closers: (() => Promise<unknown>)[] = [];

  beforeAll(() => {
    reader = testRedis();
  });

  afterAll(async () => {
    await reader.quit();
  });

  afterEach(async () => {
    for (const close of closers.reverse()) await close();
    closers = [];
  });

  /** A first webhook, signed, answered 200 and worked off by the service's consumer. */
  async function firstWebhook(url: string, prefix: string): Promise<void> {
    expect(await postSignedWebhook(url, SECRET, EMPTY_WEBHOOK)).toBe(200);
    await waitFor(() => reader.hget(webhookKeys(prefix).stats, 'posts'), {
      what: "the service's consumer worked the first webhook off",
      until: (posts) => posts === '1',
    });
  }

  it('the process, Redis up: start, a first webhook and SIGTERM log nothing at warn or above with a stack', async () => {
    const prefix = freshPrefix('serve-start');
    closers.push(() => removePrefix(reader, prefix));
    const cli = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], env(redisUrl(), prefix));
    closers.push(() => cli.stop('SIGKILL'));
    const url = (await cli.waitFor(LISTENING))[1] ?? '';

    await firstWebhook(url, prefix);
    expect(await cli.stop('SIGTERM')).toBe(0);

    const lines = parseLogLines(cli.output);
    expect(lines.length, cli.output).toBeGreaterThan(0);
    expect(linesWithStacks(lines)).toEqual([]);
  });

  it('in process, every connection held until it listens: the consumer waits for its connection, no line with a stack', async () => {
    const prefix = freshPrefix('serve-start-held');
    closers.push(() => removePrefix(reader, prefix));
    const proxy = await heldProxy(new URL(redisUrl()));
    closers.push(() => proxy.close());
    const log = capturedLogger();

    const service = await startService({ port: 0, host: '127.0.0.1' }, env(proxy.url, prefix), log.logger);
    closers.push(() => service.close());
    // The consumer has started on a connection that is not up: it must wait for it, not fail a read.
    proxy.release();
    await waitFor(() => fetch(`${service.url}/readyz`).then((answer) => answer.status === 200), { what: '/readyz answers 200' });
    await firstWebhook(service.url, prefix);
    await service.close();

    expect(linesWithStacks(log.lines)).toEqual([]);
    expect(log.lines.filter((line) => String(line.msg).includes('webhook inbox'))).toEqual([]);
  });
});
