import { createHmac } from 'node:crypto';
import { connect } from 'node:net';
import { Writable } from 'node:stream';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { pino, type Logger } from 'pino';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisWebhookInbox, createWebhookRedis, webhookInboxKey, type WebhookInbox } from '../../src/webhooks/webhook-inbox.js';
import { WEBHOOK_BODY_LIMIT, WEBHOOK_MAX_BYTES, buildWebhookServer } from '../../src/webhooks/webhook-server.js';
import { RedisServer } from '../support/fault-redis-server.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';

/**
 * The intake half of the webhook service, over real HTTP and real Redis:
 * Meta's handshake, the signature checked over the bytes as received before anything else,
 * the body in the inbox stream byte for byte before the 200, 401 and 413 writing nothing, and
 * 503 (never 200) while Redis is away, recovering by itself when it is back.
 */
const SECRET = 'app-secret-0123456789abcdef';
const OLD_SECRET = 'rotated-out-secret-5678';
const VERIFY_TOKEN = 'verify-token-4f1c9a';

function sign(body: Buffer | string, secret = SECRET): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** A status webhook as Meta serialises it: compact, non-ASCII escaped. */
function statusBody(id = 'wamid.HBgL', detail = 'caf\\u00e9'): Buffer {
  return Buffer.from(
    `{"object":"whatsapp_business_account","entry":[{"id":"102290129340398","changes":[{"value":{"messaging_product":"whatsapp",` +
      `"metadata":{"display_phone_number":"15550783881","phone_number_id":"106540352242922"},` +
      `"statuses":[{"id":"${id}","status":"sent","timestamp":"1750263773","recipient_id":"16505551234",` +
      `"biz_opaque_callback_data":"${detail}"}]},"field":"messages"}]}]}`,
  );
}

interface Running {
  app: FastifyInstance;
  url: string;
}

async function listen(app: FastifyInstance): Promise<Running> {
  await app.listen({ port: 0, host: '127.0.0.1' });
  const address = app.server.address();
  if (address === null || typeof address === 'string') throw new Error('no TCP address');
  return { app, url: `http://127.0.0.1:${address.port}` };
}

function post(url: string, body: Buffer | string, headers: Record<string, string> = {}): Promise<Response> {
  return fetch(`${url}/webhook`, { method: 'POST', body, headers: { 'content-type': 'application/json', ...headers } });
}

function handshake(url: string, query: Record<string, string>): Promise<Response> {
  return fetch(`${url}/webhook?${new URLSearchParams(query).toString()}`);
}

/** Every log line the service writes, parsed. */
function capturingLogger(): { logger: Logger; lines: Record<string, unknown>[]; text: () => string } {
  const lines: Record<string, unknown>[] = [];
  let text = '';
  const sink = new Writable({
    write(chunk: Buffer, _encoding, done) {
      text += chunk.toString();
      for (const line of chunk.toString().split('\n')) if (line.trim() !== '') lines.push(JSON.parse(line) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, sink), lines, text: () => text };
}

/** Resolves on the connection's next `event`. */
function next(redis: Redis, event: 'ready' | 'close'): Promise<void> {
  return new Promise((resolve) => redis.once(event, () => resolve()));
}

describe('webhook intake against the shared Redis', () => {
  let prefix: string;
  let reader: Redis;
  let inboxRedis: Redis;
  let inbox: RedisWebhookInbox;
  let service: Running;
  let log: ReturnType<typeof capturingLogger>;
  let clock: number;

  beforeEach(async () => {
    prefix = freshPrefix('webhook-intake');
    reader = testRedis();
    inboxRedis = createWebhookRedis(redisUrl(), silentLogger()) as Redis;
    await next(inboxRedis, 'ready');
    inbox = new RedisWebhookInbox(inboxRedis, prefix);
    log = capturingLogger();
    clock = 1_000_000;
    service = await listen(
      buildWebhookServer({
        inbox,
        verifyToken: new Secret(VERIFY_TOKEN),
        appSecrets: [new Secret(OLD_SECRET), new Secret(SECRET)],
        logger: log.logger,
        redisReady: () => inbox.ready(),
        now: () => clock,
      }),
    );
  });

  afterEach(async () => {
    await service.app.close();
    await removePrefix(reader, prefix);
    await inboxRedis.quit();
    await reader.quit();
  });

  /** The stream's entries: raw bytes of `body`, and `at`. */
  async function stored(): Promise<{ body: Buffer; at: number }[]> {
    const entries = await reader.xrangeBuffer(webhookInboxKey(prefix), '-', '+');
    return entries.map(([, fields]) => {
      const map = new Map<string, Buffer>();
      for (let i = 0; i + 1 < fields.length; i += 2) map.set(String(fields[i]), fields[i + 1] as Buffer);
      return { body: map.get('body') ?? Buffer.alloc(0), at: Number(String(map.get('at'))) };
    });
  }

  describe('GET /webhook: the handshake', () => {
    it('subscribe with the right token: 200, text/plain, the challenge as the whole body', async () => {
      const response = await handshake(service.url, {
        'hub.mode': 'subscribe',
        'hub.verify_token': VERIFY_TOKEN,
        'hub.challenge': '1158201444',
      });

      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toMatch(/^text\/plain/);
      expect(await response.text()).toBe('1158201444');
    });

    it.each([
      ['a wrong token', { 'hub.mode': 'subscribe', 'hub.verify_token': 'guess', 'hub.challenge': '1' }],
      ['the token with a character more', { 'hub.mode': 'subscribe', 'hub.verify_token': `${VERIFY_TOKEN}x`, 'hub.challenge': '1' }],
      ['a prefix of the token', { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN.slice(0, -1), 'hub.challenge': '1' }],
      ['no token', { 'hub.mode': 'subscribe', 'hub.challenge': '1' }],
      ['another mode', { 'hub.mode': 'unsubscribe', 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' }],
      ['no mode', { 'hub.verify_token': VERIFY_TOKEN, 'hub.challenge': '1' }],
      ['no challenge', { 'hub.mode': 'subscribe', 'hub.verify_token': VERIFY_TOKEN }],
      ['nothing', {}],
    ])('%s: 403, the challenge not echoed', async (_label, query) => {
      const response = await handshake(service.url, query);

      expect(response.status).toBe(403);
      expect(await response.text()).not.toBe('1');
    });

    it('the token given twice (an array) is refused', async () => {
      const response = await fetch(
        `${service.url}/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=1`,
      );

      expect(response.status).toBe(403);
    });
  });

  describe('POST /webhook', () => {
    it('signed: 200 only once the exact bytes received are in the stream, with the time received', async () => {
      // Escaped and raw non-ASCII, spacing and a newline: JSON.parse + stringify would change every one of these bytes.
      const body = Buffer.concat([statusBody(), Buffer.from('\n  {"raw":"é ✓"}\n')]);
      const before = Date.now();

      const response = await post(service.url, body, { 'x-hub-signature-256': sign(body) });
      const after = Date.now();

      expect(response.status).toBe(200);
      const entries = await stored();
      expect(entries).toHaveLength(1);
      expect(entries[0]?.body.equals(body)).toBe(true);
      // `at`: when the request came in, in ms.
      expect(entries[0]?.at).toBeGreaterThanOrEqual(before);
      expect(entries[0]?.at).toBeLessThanOrEqual(after);
    });

    it('signed with the second secret of a rotation list: 200 and stored', async () => {
      const body = statusBody('wamid.rotated');

      expect((await post(service.url, body, { 'x-hub-signature-256': sign(body, OLD_SECRET) })).status).toBe(200);
      expect((await stored()).map((e) => e.body.toString())).toStrictEqual([body.toString()]);
    });

    it.each([
      ['application/json; charset=utf-8', 'application/json; charset=utf-8'],
      ['text/plain', 'text/plain'],
      ['application/octet-stream', 'application/octet-stream'],
    ])('a body sent as %s is stored as bytes too', async (_label, contentType) => {
      const body = statusBody('wamid.ct');

      const response = await post(service.url, body, { 'content-type': contentType, 'x-hub-signature-256': sign(body) });

      expect(response.status).toBe(200);
      expect((await stored())[0]?.body.equals(body)).toBe(true);
    });

    it('a signed body that is not JSON (nor UTF-8) is stored as it came: the consumer records it as unreadable', async () => {
      const body = Buffer.from([0x7b, 0xff, 0xfe, 0x00, 0x22, 0x7d]);

      expect((await post(service.url, body, { 'x-hub-signature-256': sign(body) })).status).toBe(200);
      expect((await stored())[0]?.body.equals(body)).toBe(true);
    });

    it('every POST is its own entry, in order; an exact replay of one held unconsumed is answered 200, not stored again', async () => {
      const bodies = [statusBody('wamid.1'), statusBody('wamid.2'), statusBody('wamid.1')];
      for (const body of bodies) expect((await post(service.url, body, { 'x-hub-signature-256': sign(body) })).status).toBe(200);

      // The same body under the other secret of the rotation is another signature: stored (consumers dedupe it).
      const rotated = statusBody('wamid.1');
      expect((await post(service.url, rotated, { 'x-hub-signature-256': sign(rotated, OLD_SECRET) })).status).toBe(200);

      const expected = [bodies[0], bodies[1], rotated].map((b) => b?.toString());
      expect((await stored()).map((e) => e.body.toString())).toStrictEqual(expected);
    });

    it.each([
      ['no signature header', () => ({})],
      ['an empty header', () => ({ 'x-hub-signature-256': '' })],
      ['a malformed header', () => ({ 'x-hub-signature-256': 'sha256=nothex' })],
      ['the hex without sha256=', () => ({ 'x-hub-signature-256': sign(statusBody()).slice(7) })],
      ['a signature by another secret', () => ({ 'x-hub-signature-256': sign(statusBody(), 'not-our-secret') })],
      ['the signature of another body', () => ({ 'x-hub-signature-256': sign(statusBody('wamid.other')) })],
      ['the signature of the body before re-serialising', () => ({ 'x-hub-signature-256': sign(statusBody('wamid.HBgL', 'caf\u00e9')) })],
    ])('%s: 401 and nothing written', async (_label, headers) => {
      const response = await post(service.url, statusBody(), headers());

      expect(response.status).toBe(401);
      expect(await reader.exists(webhookInboxKey(prefix))).toBe(0);
    });

    it(`a body of ${WEBHOOK_MAX_BYTES} bytes (3 MB, Meta's maximum) is accepted and stored whole`, async () => {
      const body = bigBody(WEBHOOK_MAX_BYTES);

      const response = await post(service.url, body, { 'x-hub-signature-256': sign(body) });

      expect(response.status).toBe(200);
      const entries = await stored();
      expect(entries).toHaveLength(1);
      expect(entries[0]?.body.equals(body)).toBe(true);
    });

    it(`a body over the limit (${WEBHOOK_BODY_LIMIT + 1} bytes), signed, is 413 and nothing is written`, async () => {
      const body = bigBody(WEBHOOK_BODY_LIMIT + 1);

      const response = await post(service.url, body, { 'x-hub-signature-256': sign(body) });

      expect(response.status).toBe(413);
      expect(await reader.exists(webhookInboxKey(prefix))).toBe(0);
    });

    it('a 3 MB body without a signature is refused 401, and the service answers the next POST', async () => {
      expect((await post(service.url, bigBody(WEBHOOK_MAX_BYTES))).status).toBe(401);
      const body = statusBody();
      expect((await post(service.url, body, { 'x-hub-signature-256': sign(body) })).status).toBe(200);
    });

    it('a POST without a well-formed signature header is answered 401 before its body is sent (flood cost: headers only)', async () => {
      const port = Number(new URL(service.url).port);
      // Announces 3 MB and sends none of it: only an answer that does not wait for the body can come back.
      const head = await new Promise<string>((resolve, reject) => {
        const socket = connect(port, '127.0.0.1', () => {
          socket.write(
            `POST /webhook HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ` +
              `${WEBHOOK_MAX_BYTES}\r\nX-Hub-Signature-256: sha256=short\r\n\r\n`,
          );
        });
        let seen = '';
        socket.on('data', (chunk: Buffer) => {
          seen += chunk.toString();
          if (seen.includes('\r\n')) {
            socket.destroy();
            resolve(seen.split('\r\n')[0] ?? '');
          }
        });
        socket.on('error', reject);
        // Only the failure waits: a server that reads the body first never answers this one.
        setTimeout(() => {
          socket.destroy();
          reject(new Error('no answer within 5 s: the server waits for the body before checking the header'));
        }, 5000).unref();
      });

      expect(head).toBe('HTTP/1.1 401 Unauthorized');
    });

    it('a flood of badly signed POSTs writes one log line per 10 s, with a count, and never the body or a secret', async () => {
      const body = statusBody('wamid.flood', 'SECRET-PAYLOAD-MARKER');
      for (let i = 0; i < 30; i++) {
        expect((await post(service.url, body, { 'x-hub-signature-256': sign(body, 'wrong') })).status).toBe(401);
      }
      const refused = () => log.lines.filter((line) => String(line.msg).includes('bad signature'));
      expect(refused()).toHaveLength(1);

      clock += 9_999;
      await post(service.url, body);
      expect(refused()).toHaveLength(1);

      clock += 1;
      await post(service.url, body, { 'x-hub-signature-256': 'sha256=00' });
      expect(refused()).toHaveLength(2);
      // The 30th wrong signature and the unsigned one were held back since the first line.
      expect(refused()[1]).toMatchObject({ suppressed: 30 });

      for (const secret of [SECRET, OLD_SECRET, VERIFY_TOKEN, 'SECRET-PAYLOAD-MARKER', sign(body, 'wrong').slice(7)]) {
        expect(log.text()).not.toContain(secret);
      }
    });
  });

  describe('health', () => {
    it('GET /healthz: 200 {"ok":true}; GET /readyz: 200 while Redis answers', async () => {
      const health = await fetch(`${service.url}/healthz`);
      expect(health.status).toBe(200);
      expect(await health.json()).toStrictEqual({ ok: true });

      expect((await fetch(`${service.url}/readyz`)).status).toBe(200);
    });
  });
});

describe('the answer waits for the inbox', () => {
  it('an append that fails after a while gives 503, never an early 200', async () => {
    const inbox: WebhookInbox = {
      append: () => new Promise((_resolve, reject) => setImmediate(() => reject(new Error('XADD failed')))),
    };
    const service = await listen(
      buildWebhookServer({
        inbox,
        verifyToken: new Secret(VERIFY_TOKEN),
        appSecrets: [new Secret(SECRET)],
        logger: silentLogger(),
        redisReady: () => Promise.resolve(true),
      }),
    );
    try {
      const body = statusBody();
      const response = await post(service.url, body, { 'x-hub-signature-256': sign(body) });

      expect(response.status).toBe(503);
    } finally {
      await service.app.close();
    }
  });

  it('/readyz does not wait more than about a second for a Redis check that hangs', { timeout: 20_000 }, async () => {
    const service = await listen(
      buildWebhookServer({
        inbox: { append: () => Promise.resolve({ outcome: 'stored' as const }) },
        verifyToken: new Secret(VERIFY_TOKEN),
        appSecrets: [new Secret(SECRET)],
        logger: silentLogger(),
        redisReady: () => new Promise<boolean>(() => undefined),
      }),
    );
    try {
      // A hang would end in this test's own timeout (below), not in a wall-clock assertion.
      expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
    } finally {
      await service.app.close();
    }
  });
});

describe('Redis down: 503 so Meta retries, and back by itself', () => {
  let server: RedisServer;
  let inboxRedis: Redis;
  let service: Running;
  let log: ReturnType<typeof capturingLogger>;
  const prefix = freshPrefix('webhook-down');

  beforeEach(async () => {
    server = await RedisServer.start();
    log = capturingLogger();
    inboxRedis = createWebhookRedis(server.url, log.logger, { commandTimeoutMs: 500 }) as Redis;
    await next(inboxRedis, 'ready');
    const inbox = new RedisWebhookInbox(inboxRedis, prefix);
    service = await listen(
      buildWebhookServer({
        inbox,
        verifyToken: new Secret(VERIFY_TOKEN),
        appSecrets: [new Secret(SECRET)],
        logger: log.logger,
        redisReady: () => inbox.ready(),
      }),
    );
  });

  afterEach(async () => {
    await service.app.close();
    inboxRedis.disconnect();
    // Resumes a server a failed test left stopped, so cleanup can end it (our own PID only).
    if (server.running && server.pid !== undefined) process.kill(server.pid, 'SIGCONT');
    await server.cleanup();
  });

  async function signedPost(id: string): Promise<number> {
    const body = statusBody(id);
    return (await post(service.url, body, { 'x-hub-signature-256': sign(body) })).status;
  }

  async function storedIds(): Promise<string[]> {
    const { Redis } = await import('ioredis');
    const direct = new Redis(server.url);
    try {
      const entries = await direct.xrange(webhookInboxKey(prefix), '-', '+');
      return entries.map(([, fields]) => /"id":"(wamid\.[^"]+)"/.exec(fields[1] ?? '')?.[1] ?? '?');
    } finally {
      await direct.quit();
    }
  }

  it('redis-server killed (by its PID): POST 503 and /readyz 503 at once, /healthz 200; restarted: 200 again', async () => {
    expect(await signedPost('wamid.before')).toBe(200);

    const closed = next(inboxRedis, 'close');
    await server.stop('SIGKILL');
    await closed;
    expect(await signedPost('wamid.during')).toBe(503);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
    expect((await fetch(`${service.url}/healthz`)).status).toBe(200);
    for (let i = 0; i < 20; i++) expect(await signedPost(`wamid.flood${i}`)).toBe(503);
    expect(log.lines.filter((line) => String(line.msg).includes('not stored'))).toHaveLength(1);

    const ready = next(inboxRedis, 'ready');
    await server.launch();
    await ready;
    expect(await signedPost('wamid.after')).toBe(200);
    expect((await fetch(`${service.url}/readyz`)).status).toBe(200);

    // What was answered 200 is there (AOF kept the first across the crash); what was answered 503 is not.
    expect(await storedIds()).toStrictEqual(['wamid.before', 'wamid.after']);
  });

  it(
    'redis-server frozen (SIGSTOP): POST 503 after the command timeout, not a hang; /readyz 503; thawed: 200',
    { timeout: 20_000 },
    async () => {
      const pid = server.pid;
      if (pid === undefined) throw new Error('no redis-server PID');
      expect(await signedPost('wamid.before')).toBe(200);

      process.kill(pid, 'SIGSTOP');
      try {
        // After the 500 ms command timeout; a hang would end in this test's own timeout.
        expect(await signedPost('wamid.frozen')).toBe(503);
        expect((await fetch(`${service.url}/readyz`)).status).toBe(503);
      } finally {
        process.kill(pid, 'SIGCONT');
      }

      expect(await signedPost('wamid.thawed')).toBe(200);
      // A 503 does not promise that nothing was written: the frozen XADD ran once Redis woke up.
      // Meta sends it again, and the consumers apply statuses idempotently.
      expect(await storedIds()).toStrictEqual(['wamid.before', 'wamid.frozen', 'wamid.thawed']);
    },
  );
});

/** A signed-looking JSON body of exactly `bytes` bytes. */
function bigBody(bytes: number): Buffer {
  const head = '{"object":"whatsapp_business_account","padding":"';
  const tail = '"}';
  return Buffer.from(head + 'x'.repeat(bytes - head.length - tail.length) + tail);
}
