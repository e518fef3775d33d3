import { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { problemSchema } from '../../src/api/problem.js';
import { RedisApiTokens } from '../../src/redis/access/redis-api-tokens.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { tempDir } from '../support/csv-files.js';
import { freePort, RedisServer } from '../support/fault-redis-server.js';
import { capturedLogger, linesWithStacks, type LogLine } from '../support/log-lines.js';
import { freshPrefix } from '../support/redis.js';

/** Routes of every kind: lists, one campaign, its files, a control (with a body), the directory, opt-outs, hooks. */
const API_CALLS: [string, string, string?][] = [
  ['GET', '/campaigns'],
  ['GET', '/campaigns/c1'],
  ['GET', '/campaigns/c1/report'],
  ['POST', '/campaigns/c1/pause', '{"reason":"x"}'],
  ['POST', '/campaigns/c1/retry', '{}'],
  ['GET', '/templates'],
  ['GET', '/numbers'],
  ['DELETE', '/optouts', '{"phones":["+15550001111"]}'],
  ['GET', '/hooks'],
  ['GET', '/no-such-route'],
];
/** The pages, their live JSON and the queue dashboard. */
const PAGES = ['/', '/campaigns/c1', '/campaigns/new', '/hooks', '/hooks/crm', '/queues', '/api/campaigns/c1'];

/** `serve` as the tests start it, on `redisUrl`, logging into lines the test reads. */
async function serveOn(redisUrl: string, prefix: string) {
  const reports = await tempDir();
  const { logger, lines } = capturedLogger('info');
  const env = {
    REDIS_URL: redisUrl,
    QUEUE_PREFIX: prefix,
    WHATSAPP_APP_SECRET: 'redis-down-secret',
    WEBHOOK_VERIFY_TOKEN: 'redis-down-verify',
    REPORTS_DIR: reports.dir,
  };
  const service = await startService({ port: 0, host: '127.0.0.1' }, env, logger);
  return { service, lines, cleanup: reports.cleanup };
}

/** Every API route answers 503 REDIS_UNAVAILABLE with Retry-After, as a problem document; every page a 503 page saying so. */
async function expectUnavailable(service: RunningService, token: string): Promise<void> {
  // All at once: each waits up to a second for a connection coming up before it is refused.
  await Promise.all([
    ...API_CALLS.map(async ([method, path, body]) => {
      const answer = await fetch(`${service.url}/api/v1${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, ...(body === undefined ? {} : { 'content-type': 'application/json' }) },
        ...(body === undefined ? {} : { body }),
      });
      const at = `${method} ${path}`;
      expect(answer.status, at).toBe(503);
      expect(Number(answer.headers.get('retry-after')), at).toBeGreaterThan(0);
      expect(answer.headers.get('content-type'), at).toMatch(/^application\/problem\+json/);
      expect(problemSchema.parse(await answer.json()), at).toMatchObject({ status: 503, code: 'REDIS_UNAVAILABLE' });
    }),
    ...PAGES.map(async (path) => {
      const answer = await fetch(`${service.url}${path}`);
      expect(answer.status, path).toBe(503);
      expect(Number(answer.headers.get('retry-after')), path).toBeGreaterThan(0);
      expect(await answer.text(), path).toMatch(/Redis is not answering/);
      if (!path.startsWith('/api/')) expect(answer.headers.get('content-type'), path).toMatch(/^text\/html/);
    }),
  ]);
  // What needs no Redis still answers: the OpenAPI document, the pages' stylesheet.
  expect((await fetch(`${service.url}/api/v1/openapi.json`)).status).toBe(200);
  expect((await fetch(`${service.url}/dashboard/style.css`)).status).toBe(200);
}

/** Nothing about Redis being away reads as a bug in the log: no error line, no stack. */
function expectNoAlarm(lines: readonly LogLine[]): void {
  expect(linesWithStacks(lines)).toStrictEqual([]);
  expect(lines.filter((line) => (line.level ?? 0) >= 50)).toStrictEqual([]);
}

describe('HTTP API and pages with Redis unreachable: 503 REDIS_UNAVAILABLE with Retry-After', () => {
  describe('Redis dies under a running serve', () => {
    let redis: RedisServer;
    let running: Awaited<ReturnType<typeof serveOn>>;
    let token: string;

    beforeAll(async () => {
      redis = await RedisServer.start();
      const prefix = freshPrefix('api-redis-down');
      running = await serveOn(redis.url, prefix);
      const client = new Redis(redis.url);
      try {
        token = (await new RedisApiTokens(client, prefix).create('down', 'admin')).token.reveal();
      } finally {
        client.disconnect();
      }
    });
    afterAll(async () => {
      // The service first (it holds connections to this Redis), then the server (by its own PID) and its files.
      await running?.service.close();
      await running?.cleanup();
      await redis?.cleanup();
    });

    it('answers 200 while Redis is up, then 503 on every route and page once it is killed', async () => {
      expect((await fetch(`${running.service.url}/api/v1/campaigns`, { headers: { authorization: `Bearer ${token}` } })).status).toBe(200);
      expect((await fetch(`${running.service.url}/`)).status).toBe(200);
      await redis.stop('SIGKILL');
      await expectUnavailable(running.service, token);
      expectNoAlarm(running.lines);
    });
  });

  describe('Redis was never reachable (a port nothing listens on)', () => {
    let running: Awaited<ReturnType<typeof serveOn>>;

    beforeAll(async () => {
      running = await serveOn(`redis://127.0.0.1:${await freePort()}`, freshPrefix('api-redis-never'));
    });
    afterAll(async () => {
      await running?.service.close();
      await running?.cleanup();
    });

    it('answers 503 on every route and page, whatever the token', async () => {
      await expectUnavailable(running.service, `cwt_${'a'.repeat(43)}`);
      expectNoAlarm(running.lines);
    });
  });
});
