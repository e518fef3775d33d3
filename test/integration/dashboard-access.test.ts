import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/campaigns/report/report.js';
import { isAppError } from '../../src/errors/app-error.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { tempDir } from '../support/csv-files.js';
import { forgetLoginFailures } from '../support/login-failures.js';
import { waitFor } from '../support/waiting.js';
import { LEDGER_TEST_NUMBER, ingestQueuedCampaign, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';

/**
 * The campaigns page and queue dashboard over real HTTP against `campaign serve` on a real
 * Redis: who may see the campaigns page and /queues (basic auth), which control POSTs are
 * obeyed (CSRF token, same origin), that /metrics, /healthz and the webhook stay open, the
 * report download, hostile values escaped, and the refusal to listen beyond loopback
 * without a password.
 */
const USER = 'ops';
const PASSWORD = 'a long passphrase';
const VERIFY_TOKEN = 'dashboard-verify';
const HOSTILE_REASON = '<script>alert("reason")</script>';
const HOSTILE_CODE = '<img src=x onerror=alert(1)>';
const HOSTILE_DETAIL = '<script>alert("detail")</script> & "quoted"';

const basic = (user: string, password: string) => `Basic ${Buffer.from(`${user}:${password}`).toString('base64')}`;
const GOOD = { authorization: basic(USER, PASSWORD) };

function serviceEnv(prefix: string, extra: Record<string, string> = {}): Record<string, string> {
  return {
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    WHATSAPP_APP_SECRET: 'dashboard-secret',
    WEBHOOK_VERIFY_TOKEN: VERIFY_TOKEN,
    ...extra,
  };
}

describe('campaign serve: the dashboard behind basic auth and CSRF checks', () => {
  const prefix = freshPrefix('dashboard-access');
  let redis: Redis;
  let ledger: RedisLedger;
  let service: RunningService;
  let open: RunningService;
  /** A running campaign to pause, resume, reschedule and cancel. */
  const running = 'dash-running';
  /** A paused campaign full of hostile text, with a rejected row. */
  const hostile = 'dash-hostile';

  const request = (path: string, init: RequestInit = {}, base = service.url) => fetch(`${base}${path}`, { redirect: 'manual', ...init });
  const post = (path: string, form: Record<string, string>, headers: Record<string, string> = {}, base = service.url) =>
    request(
      path,
      {
        method: 'POST',
        body: new URLSearchParams(form).toString(),
        headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
      },
      base,
    );
  /** The form token a campaign page hands out (as a browser would read it). */
  const formToken = async (id: string, headers: Record<string, string> = GOOD, base = service.url): Promise<string> => {
    const page = await (await request(`/campaigns/${id}`, { headers }, base)).text();
    const token = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
    if (token === undefined) throw new Error(`no form token on the page of ${id}:\n${page}`);
    return token;
  };
  const state = async (id: string) => (await ledger.status(id))?.state;

  beforeAll(async () => {
    redis = testRedis();
    ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, running, 5);
    await ledger.createCampaign(ledgerTestDefinition(hostile));
    await ledger.recordIngested(hostile, LEDGER_TEST_NUMBER, [
      queuedRow(1),
      { row: 2, phone: '+4915100000002', status: 'rejected', errorCode: HOSTILE_CODE, errorDetail: HOSTILE_DETAIL },
    ]);
    await ledger.finishIngest(hostile);
    await ledger.pause(hostile, HOSTILE_REASON);
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      serviceEnv(prefix, { DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD }),
      silentLogger(),
    );
    open = await startService({ port: 0, host: '127.0.0.1' }, serviceEnv(prefix), silentLogger());
  });

  afterAll(async () => {
    await service?.close();
    await open?.close();
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('answers 401 with a basic-auth challenge without credentials, with wrong ones, or a malformed header', async () => {
    const paths = [
      '/',
      '/api/campaigns',
      `/campaigns/${running}`,
      `/api/campaigns/${running}`,
      `/campaigns/${running}/report.csv`,
      '/campaigns/new',
      '/dashboard/live.js',
      '/dashboard/new-campaign.js',
      '/dashboard/retarget.js',
      '/dashboard/charts.js',
      '/dashboard/uplot.min.js',
      '/queues',
      '/queues/api/queues',
    ];
    const refused: Record<string, string>[] = [
      {},
      { authorization: basic(USER, 'wrong') },
      { authorization: basic('admin', PASSWORD) },
      { authorization: basic(USER, `${PASSWORD} `) },
      { authorization: `Bearer ${PASSWORD}` },
      { authorization: 'Basic !!!' },
    ];
    for (const path of paths) {
      // Three wrong passwords a path: the login throttle (its own test) would refuse them with 429 after ten.
      await forgetLoginFailures(redis, prefix);
      for (const headers of refused) {
        const response = await request(path, { headers });
        expect(response.status, `${path} with ${JSON.stringify(headers)}`).toBe(401);
        expect(response.headers.get('www-authenticate')).toMatch(/^Basic realm=/);
        expect(await response.text()).not.toContain(running);
      }
      expect((await request(path, { headers: GOOD })).status, path).toBe(200);
    }
  });

  it('refuses every control POST without credentials (401), even with a valid form token, and changes nothing', async () => {
    await forgetLoginFailures(redis, prefix);
    const csrf = await formToken(running);
    for (const action of ['pause', 'resume', 'cancel', 'reschedule']) {
      const response = await post(`/campaigns/${running}/${action}`, { csrf, at: '2099-01-01T00:00:00Z' });
      expect(response.status, action).toBe(401);
      expect((await post(`/campaigns/${running}/${action}`, { csrf }, { authorization: basic(USER, 'nope') })).status).toBe(401);
    }
    expect(await state(running)).toBe('running');
  });

  it('refuses control POSTs without a valid form token, or from another site (403), and changes nothing', async () => {
    const csrf = await formToken(running);
    const [issued, mac] = csrf.split('.');
    const tampered = `${issued}.${(mac ?? '').replace(/^./, (c) => (c === 'A' ? 'B' : 'A'))}`;
    const stale = `${Date.now() - 13 * 3_600_000}.${mac}`;
    const cases: [string, Record<string, string>, Record<string, string>][] = [
      ['no token', {}, GOOD],
      ['empty token', { csrf: '' }, GOOD],
      ['tampered token', { csrf: tampered }, GOOD],
      ['token of another time', { csrf: stale }, GOOD],
      ['valid token, cross-site fetch', { csrf }, { ...GOOD, 'sec-fetch-site': 'cross-site' }],
      ['valid token, another origin', { csrf }, { ...GOOD, origin: 'https://evil.example' }],
    ];
    for (const [what, form, headers] of cases) {
      const response = await post(`/campaigns/${running}/pause`, form, headers);
      expect(response.status, what).toBe(403);
      expect(await response.text(), what).toContain('This control was not run');
    }
    // The token is bound to the user: one from the service without a password does not work here.
    const otherUsers = await formToken(running, {}, open.url);
    expect((await post(`/campaigns/${running}/pause`, { csrf: otherUsers }, GOOD)).status).toBe(403);
    // Bull-board's API refuses another site's writes too.
    expect(
      (await request('/queues/api/queues/pause', { method: 'PUT', headers: { ...GOOD, 'sec-fetch-site': 'cross-site' } })).status,
    ).toBe(403);
    expect(await state(running)).toBe('running');
  });

  it('runs pause, resume, reschedule and cancel with a valid token, as the CLI would, and shows why one is refused', async () => {
    const csrf = await formToken(running);
    const sameSite = { ...GOOD, 'sec-fetch-site': 'same-origin', origin: service.url };
    const paused = await post(`/campaigns/${running}/pause`, { csrf }, sameSite);
    expect(paused.status).toBe(303);
    expect(paused.headers.get('location')).toBe(`/campaigns/${running}?done=pause`);
    expect(await ledger.status(running)).toMatchObject({ state: 'paused', pausedReason: `paused from the campaigns page by ${USER}` });
    const page = await (await request(`/campaigns/${running}?done=pause`, { headers: GOOD })).text();
    expect(page).toContain('Paused: no new send starts');
    expect(page).toContain(`action="/campaigns/${running}/resume"`);

    expect((await post(`/campaigns/${running}/resume`, { csrf }, GOOD)).status).toBe(303);
    expect(await state(running)).toBe('running');

    // It never started (no worker fed it): its start can move.
    const badAt = await post(`/campaigns/${running}/reschedule`, { csrf, at: 'tomorrow' }, GOOD);
    expect(badAt.status).toBe(400);
    expect(await badAt.text()).toContain('give a date and time with its offset');
    const at = new Date(Date.now() + 2 * 86_400_000);
    expect((await post(`/campaigns/${running}/reschedule`, { csrf, at: at.toISOString() }, GOOD)).status).toBe(303);
    expect(await ledger.status(running)).toMatchObject({ state: 'scheduled', startsAt: at.getTime() });

    expect((await post(`/campaigns/${running}/cancel`, { csrf }, GOOD)).status).toBe(303);
    expect(await state(running)).toBe('cancelled');
    const conflict = await post(`/campaigns/${running}/pause`, { csrf }, GOOD);
    expect(conflict.status).toBe(409);
    expect(await conflict.text()).toContain(`Cannot pause campaign ${running}: it is cancelled`);
    expect((await post('/campaigns/no-such/pause', { csrf }, GOOD)).status).toBe(404);
  });

  it('leaves /metrics, /healthz, /readyz and the webhook routes open, as they were', async () => {
    for (const path of ['/metrics', '/healthz', '/readyz']) {
      const response = await request(path);
      expect(response.status, path).toBe(200);
      expect(response.headers.get('www-authenticate'), path).toBeNull();
    }
    const handshake = await request(`/webhook?hub.mode=subscribe&hub.verify_token=${VERIFY_TOKEN}&hub.challenge=4242`);
    expect(handshake.status).toBe(200);
    expect(await handshake.text()).toBe('4242');
    // Unsigned: the webhook's own signature check answers (no basic-auth challenge).
    const unsigned = await request('/webhook', { method: 'POST', body: '{}', headers: { 'content-type': 'application/json' } });
    expect(unsigned.status).toBe(401);
    expect(unsigned.headers.get('www-authenticate')).toBeNull();
  });

  it('escapes hostile values from the ledger on the list and the campaign page', async () => {
    for (const path of ['/', `/campaigns/${hostile}`]) {
      const body = await (await request(path, { headers: GOOD })).text();
      expect(body, path).toContain('&lt;script&gt;alert(&quot;reason&quot;)&lt;/script&gt;');
      expect(body, path).not.toContain('<script>alert');
      expect(body, path).not.toContain('<img');
    }
    const page = await (await request(`/campaigns/${hostile}`, { headers: GOOD })).text();
    // Errors by code: the rejected row, counted from the rows, its code and detail escaped.
    expect(page).toContain('<td>rejected</td><td><code>&lt;img src=x onerror=alert(1)&gt;</code></td><td class="n">1</td>');
    expect(page).toContain('&lt;script&gt;alert(&quot;detail&quot;)&lt;/script&gt; &amp; &quot;quoted&quot;');
    expect(page).toContain('Counted over all 2 rows');
    const live = (await (await request(`/api/campaigns/${hostile}`, { headers: GOOD })).json()) as {
      campaigns: { fields: { stateNote: string } }[];
    };
    expect(live.campaigns[0]?.fields.stateNote).toBe(HOSTILE_REASON);
  });

  it('downloads the report exactly as `campaign report` writes it', async () => {
    const dir = await tempDir();
    try {
      const path = join(dir.dir, 'report.csv');
      await writeReport(ledger, hostile, path);
      const response = await request(`/campaigns/${hostile}/report.csv`, { headers: GOOD });
      expect(response.status).toBe(200);
      expect(response.headers.get('content-type')).toBe('text/csv; charset=utf-8');
      expect(response.headers.get('content-disposition')).toBe(`attachment; filename="${hostile}.csv"`);
      expect(await response.text()).toBe(await readFile(path, 'utf8'));
    } finally {
      await dir.cleanup();
    }
    expect((await request('/campaigns/no-such/report.csv', { headers: GOOD })).status).toBe(404);
  });

  it('shows in /queues the send queue of every number with campaigns, including one that appears later', async () => {
    const names = async () =>
      ((await (await request('/queues/api/queues', { headers: GOOD })).json()) as { queues: { name: string }[] }).queues
        .map((q) => q.name)
        .sort();
    expect(await names()).toEqual([`send-${LEDGER_TEST_NUMBER}`]);
    await ledger.createCampaign({ ...ledgerTestDefinition('dash-other-number'), phoneNumberId: '222333444' });
    // bull-board's page asks every few seconds; the board looks for new numbers at most once a second.
    const seen = await waitFor(names, {
      what: 'the queue of number 222333444 shown',
      timeoutMs: 15_000,
      intervalMs: 200,
      until: (shown) => shown.includes('send-222333444'),
    });
    expect(seen).toEqual(['send-106540352242922', 'send-222333444']);
    const board = await (await request('/queues', { headers: GOOD })).text();
    expect(board).toContain('campaign-worker queues');
  });

  it('without DASHBOARD_PASSWORD (loopback only) needs no login, but still refuses a control without a form token', async () => {
    expect((await request('/', {}, open.url)).status).toBe(200);
    expect((await request('/queues/api/queues', {}, open.url)).status).toBe(200);
    expect((await post(`/campaigns/${hostile}/resume`, {}, {}, open.url)).status).toBe(403);
    expect(await state(hostile)).toBe('paused');
  });
});

describe('campaign serve --host beyond loopback', () => {
  const prefix = freshPrefix('dashboard-host');

  // A service that starts makes its webhook inbox under the prefix, even one that then refuses the host.
  afterAll(async () => {
    const redis = testRedis();
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  it('refuses to start without DASHBOARD_PASSWORD, saying how to fix it', async () => {
    for (const host of ['0.0.0.0', '::', '192.0.2.10']) {
      const error: unknown = await startService({ port: 0, host }, serviceEnv(prefix), silentLogger()).then(
        async (s) => {
          await s.close();
          return undefined;
        },
        (e: unknown) => e,
      );
      expect(isAppError(error, 'DASHBOARD_PASSWORD_REQUIRED'), `${host}: ${String(error)}`).toBe(true);
      expect((error as Error).message).toContain('set DASHBOARD_PASSWORD');
      expect((error as Error).message).toContain('--host 127.0.0.1');
    }
  });

  it('starts on 0.0.0.0 with a password, and on loopback without one', async () => {
    const guarded = await startService({ port: 0, host: '0.0.0.0' }, serviceEnv(prefix, { DASHBOARD_PASSWORD: PASSWORD }), silentLogger());
    try {
      expect((await fetch(`${guarded.url}/`)).status).toBe(401);
      expect((await fetch(`${guarded.url}/healthz`)).status).toBe(200);
    } finally {
      await guarded.close();
    }
    for (const host of ['127.0.0.1', 'localhost', '::1']) {
      const local = await startService({ port: 0, host }, serviceEnv(prefix), silentLogger()).catch((e: unknown) => e);
      if (!(local instanceof Error)) await (local as RunningService).close();
      // ::1 may not exist on this host (PORT_IN_USE), but never a password refusal.
      expect(isAppError(local, 'DASHBOARD_PASSWORD_REQUIRED'), host).toBe(false);
    }
  });
});
