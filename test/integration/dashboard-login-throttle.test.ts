import { request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import Fastify, { type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Secret } from '../../src/config/secret.js';
import { registerApi } from '../../src/api/api-server.js';
import { DashboardAccess } from '../../src/dashboard/access.js';
import { CsrfTokens, redisCsrfKey } from '../../src/dashboard/csrf.js';
import { LoginThrottle } from '../../src/dashboard/login-throttle.js';
import { createLogger } from '../../src/logging/logger.js';
import { createServiceMetrics, type ServiceMetrics } from '../../src/metrics/service-metrics.js';
import { RedisApiTokens } from '../../src/redis/access/redis-api-tokens.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { RedisLoginAttempts } from '../../src/redis/access/redis-login-attempts.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * The dashboard's login throttle over real HTTP and a real Redis: two "replicas" of the dashboard's access check
 * (each its own server and throttle, one Redis prefix), each with a page behind basic auth and the HTTP API that
 * takes the pages' calls (X-CSRF-Token). The clock is the test's: a window passes when the test moves it, and the
 * counts of the next window are new keys, so nothing waits for time. Clients connect from different loopback
 * addresses (127.0.0.x) to be different client addresses.
 */
const USER = 'ops';
const PASSWORD = 'the right passphrase';
const WINDOW_MS = 60_000;
const PER_ADDRESS = 10;
const PER_USER = 15;
const ADDRESS_LOCK_LOG = 'dashboard logins from this address refused until the window ends: too many wrong passwords';
const USER_LOCK_LOG = 'dashboard logins as this user refused until the window ends: too many wrong passwords';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const RIGHT = basic(USER, PASSWORD);
const wrong = (n: number) => basic(USER, `guess ${n}`);

interface Answer {
  status: number;
  headers: Record<string, string | string[] | undefined>;
  body: string;
}

/** GET `path` from the loopback address `from` (Node's fetch cannot choose the address it connects from). */
function get(base: string, path: string, headers: Record<string, string>, from: string): Promise<Answer> {
  return new Promise((resolve, reject) => {
    const request = httpRequest(`${base}${path}`, { headers, localAddress: from, agent: false }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode ?? 0, headers: response.headers, body }));
      response.on('error', reject);
    });
    request.on('error', reject);
    request.end();
  });
}

describe('the dashboard login throttle', () => {
  const prefix = freshPrefix('login-throttle');
  let redis: Redis;
  let clock = Date.UTC(2030, 0, 1, 12, 0, 0);
  const now = () => clock;
  const logs: { msg?: string; address?: string; user?: string }[] = [];
  const logger = createLogger('info', { write: (line: string) => void logs.push(JSON.parse(line) as (typeof logs)[number]) });
  const replicas: { app: FastifyInstance; url: string; access: DashboardAccess }[] = [];
  let metrics: ServiceMetrics;

  async function replica(): Promise<(typeof replicas)[number]> {
    const credentials = { user: USER, password: new Secret(PASSWORD) };
    const access = new DashboardAccess({
      credentials,
      csrf: new CsrfTokens({ key: redisCsrfKey(redis, prefix), now }),
      throttle: new LoginThrottle({
        store: new RedisLoginAttempts(redis, prefix),
        logger,
        dashboardUser: USER,
        now,
        windowMs: WINDOW_MS,
        failuresPerAddress: PER_ADDRESS,
        failuresPerUser: PER_USER,
      }),
      logger,
    });
    const app = Fastify();
    await app.register((scope, _options, done) => {
      scope.addHook('onRequest', access.authenticate);
      scope.get('/', (_request, reply) => reply.send('the campaigns'));
      done();
    });
    await registerApi(app, {
      redis,
      prefix,
      tokens: new RedisApiTokens(redis, prefix),
      sessions: access,
      limits: { maxUploadBytes: 1024, requestsPerMinute: 10_000 },
      logger,
      routes: (scope) => {
        scope.get('/probe', (_request, reply) => reply.send({ ok: true }));
      },
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    return { app, url: `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`, access };
  }

  /** The page of replica `r`, or (api) the API as a page's script calls it, with the page's CSRF token. */
  async function login(r: number, authorization: string | undefined, from: string, api = false): Promise<Answer> {
    const { url, access } = replicas[r]!;
    const headers: Record<string, string> = authorization === undefined ? {} : { authorization };
    if (api) headers['x-csrf-token'] = await access.formToken();
    return get(url, api ? '/api/v1/probe' : '/', headers, from);
  }

  const lockLogs = (msg: string) => logs.filter((line) => line.msg === msg);

  const refusals = async (): Promise<Record<string, number>> => {
    const text = (await metrics.scrape()).body;
    const counts: Record<string, number> = {};
    for (const match of text.matchAll(/^cw_dashboard_login_refusals_total\{reason="([a-z_]+)"\} (\d+)$/gm))
      counts[match[1] ?? ''] = Number(match[2]);
    return counts;
  };

  beforeAll(async () => {
    redis = testRedis();
    replicas.push(await replica(), await replica());
    metrics = createServiceMetrics({ redis, prefix, retentionMs: 60_000, sendRate: () => 20, ledger: new RedisLedger(redis, prefix) });
  });

  afterAll(async () => {
    for (const { app } of replicas) await app.close();
    await metrics?.close();
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('refuses the 11th wrong password from an address with 429 and Retry-After, the right one too, until the window ends', async () => {
    const from = '127.0.0.2';
    // Ten wrong passwords, spread over both replicas and both ways in: each is a plain 401 with the challenge.
    for (let n = 1; n <= PER_ADDRESS; n++) {
      const answer = await login(n % 2, wrong(n), from, n % 3 === 0);
      expect(answer.status, `wrong password ${n}`).toBe(401);
      // Both ways in challenge the browser, so that it sends the credentials it keeps for the realm.
      expect(answer.headers['www-authenticate']).toMatch(/^Basic realm="campaign-worker dashboard"/);
    }
    // The 11th: refused unread, whichever replica and way in, with when to try again (the minute's end: 60 s away).
    const eleventh = await login(0, wrong(11), from);
    expect(eleventh.status).toBe(429);
    expect(eleventh.headers['retry-after']).toBe('60');
    expect(eleventh.headers['www-authenticate']).toBeUndefined();
    expect(eleventh.body).not.toContain('the campaigns');
    // The right password is refused the same way, on the page and through the API (a problem document with its code).
    clock += 45_500;
    const right = await login(1, RIGHT, from);
    expect([right.status, right.headers['retry-after']]).toEqual([429, '15']);
    const api = await login(0, RIGHT, from, true);
    expect(api.status).toBe(429);
    expect(api.headers['retry-after']).toBe('15');
    expect(JSON.parse(api.body)).toMatchObject({ code: 'DASHBOARD_LOGIN_THROTTLED', status: 429 });
    // Another address is not refused: the lock is this address's.
    expect((await login(0, RIGHT, '127.0.0.3')).status).toBe(200);
    // The lock was logged once, by address (never a password), not once per refusal.
    const locks = lockLogs(ADDRESS_LOCK_LOG);
    expect(locks).toHaveLength(1);
    expect(locks[0]?.address).toBe(from);
    expect(JSON.stringify(logs)).not.toContain('guess');
    expect(JSON.stringify(logs)).not.toContain(PASSWORD);

    // The next window: the right password gets in, on both ways in.
    clock += 14_500;
    expect((await login(1, RIGHT, from)).status).toBe(200);
    expect((await login(0, RIGHT, from, true)).status).toBe(200);
    // Ten more wrong ones lock the address again: one more log line, for this window.
    for (let n = 1; n <= PER_ADDRESS; n++) expect((await login(n % 2, wrong(100 + n), from)).status).toBe(401);
    expect((await login(0, RIGHT, from)).status).toBe(429);
    expect(lockLogs(ADDRESS_LOCK_LOG)).toHaveLength(2);
    clock += WINDOW_MS;
  });

  it('locks a user guessed at from many addresses, without letting one locked address lock it alone', async () => {
    const before = await refusals();
    // One address: its 10 wrong passwords lock it; its further tries are refused unread and do not count for the user.
    for (let n = 1; n <= PER_ADDRESS + 20; n++) await login(0, wrong(n), '127.0.0.4');
    expect((await login(1, RIGHT, '127.0.0.5')).status).toBe(200);
    // A login that succeeded reset nothing: the locked address stays locked.
    expect((await login(1, RIGHT, '127.0.0.4')).status).toBe(429);
    // Five more from other addresses bring the user to its limit: 15 wrong passwords in the window, from three addresses.
    for (let n = 1; n <= PER_USER - PER_ADDRESS; n++)
      expect((await login(n % 2, wrong(200 + n), `127.0.0.${5 + (n % 2)}`)).status, `spread ${n}`).toBe(401);
    const locked = await login(0, RIGHT, '127.0.0.7');
    expect(locked.status).toBe(429);
    expect(JSON.parse((await login(1, RIGHT, '127.0.0.7', true)).body)).toMatchObject({ code: 'DASHBOARD_LOGIN_THROTTLED' });
    // Another user name is not locked (its password is wrong: 401, not 429).
    expect((await login(0, basic('someone', PASSWORD), '127.0.0.7')).status).toBe(401);
    const userLocks = lockLogs(USER_LOCK_LOG);
    expect(userLocks).toHaveLength(1);
    expect(userLocks[0]?.user).toBe(USER);
    // The user's lock ends with its window, like an address's.
    clock += WINDOW_MS;
    expect((await login(1, RIGHT, '127.0.0.7')).status).toBe(200);

    // Every refusal counted by reason, by every replica together: 10 + 5 + 1 wrong, 20 + 1 refused for the address,
    // 2 for the user. Requests that carried no credentials are not counted.
    expect((await login(0, undefined, '127.0.0.8')).status).toBe(401);
    const after = await refusals();
    const added = (reason: string) => (after[reason] ?? 0) - (before[reason] ?? 0);
    expect([added('wrong_credentials'), added('throttled_address'), added('throttled_user')]).toEqual([16, 21, 2]);
  });
});
