import type { Redis } from 'ioredis';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisCampaignHistory } from '../../src/redis/history/redis-campaign-history.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';

/** A user name that is markup: the page must show it as text. */
const USER = '<i>alice';
const PASSWORD = 'a long passphrase';
const GOOD = { authorization: `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}` };

/**
 * The campaign page's controls over real HTTP against `campaign serve` on a real Redis: a
 * control that changed the campaign is recorded with the dashboard's user (DASHBOARD_USER, or
 * none without a password), one that changed nothing is not, and the page's History shows it.
 */
describe('campaign serve: the campaigns page records who controlled a campaign', () => {
  const prefix = freshPrefix('dashboard-history');
  let redis: Redis;
  let ledger: RedisLedger;
  let history: RedisCampaignHistory;
  let service: RunningService;
  let open: RunningService;

  const env = (extra: Record<string, string> = {}) => ({
    REDIS_URL: redisUrl(),
    QUEUE_PREFIX: prefix,
    LOG_LEVEL: 'silent',
    WHATSAPP_APP_SECRET: 'dashboard-secret',
    WEBHOOK_VERIFY_TOKEN: 'dashboard-verify',
    ...extra,
  });

  const page = async (base: string, id: string, headers: Record<string, string>) =>
    (await fetch(`${base}/campaigns/${id}`, { headers })).text();

  const formToken = async (base: string, id: string, headers: Record<string, string> = {}) =>
    /name="csrf" value="([^"]+)"/.exec(await page(base, id, headers))?.[1] ?? '';

  /** Posts a control as the page's button does (its form token read from the page first, unless given). */
  async function control(base: string, id: string, action: string, headers: Record<string, string> = {}, given?: string): Promise<number> {
    const token = given ?? (await formToken(base, id, headers));
    const response = await fetch(`${base}/campaigns/${id}/${action}`, {
      method: 'POST',
      redirect: 'manual',
      body: new URLSearchParams({ csrf: token }).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    });
    return response.status;
  }

  beforeAll(async () => {
    redis = testRedis();
    ledger = new RedisLedger(redis, prefix);
    history = new RedisCampaignHistory(redis, prefix);
    await ingestQueuedCampaign(ledger, 'hist-1', 3);
    await ingestQueuedCampaign(ledger, 'hist-open', 3);
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      env({ DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD }),
      silentLogger(),
    );
    open = await startService({ port: 0, host: '127.0.0.1' }, env(), silentLogger());
  });

  afterAll(async () => {
    await service?.close();
    await open?.close();
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('records pause and resume with DASHBOARD_USER, not a pause of a paused campaign, and shows them', async () => {
    const before = Date.now();
    expect(await page(service.url, 'hist-1', GOOD)).toMatch(/<h2>History<\/h2>\s*<p class="history none">Nothing recorded/);

    expect(await control(service.url, 'hist-1', 'pause', GOOD)).toBe(303);
    expect(await control(service.url, 'hist-1', 'pause', GOOD)).toBe(303);
    expect(await control(service.url, 'hist-1', 'resume', GOOD)).toBe(303);

    const entries = await history.list('hist-1');
    expect(entries.map((e) => e.action)).toStrictEqual(['resume', 'pause']);
    for (const e of entries) {
      expect(e.actor).toStrictEqual({ kind: 'dashboard', name: USER });
      expect(e.at).toBeGreaterThanOrEqual(before);
    }
    expect(entries[1]?.detail).toBe(`paused from the campaigns page by ${USER}`);

    const html = await page(service.url, 'hist-1', GOOD);
    const section = html.slice(html.indexOf('<h2>History</h2>'));
    const rows = [...section.matchAll(/<tr><td>([^<]*)<\/td><td data-actor="dashboard">([^<]*)<\/td><td>(\w+)<\/td>/g)];
    expect(rows.map((r) => r[3])).toStrictEqual(['resume', 'pause']);
    // The page's time format; the user as text, never markup.
    expect(rows[0]?.[1]).toMatch(/^\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/);
    expect(rows[0]?.[2]).toBe('dashboard user &lt;i&gt;alice');
    expect(section).not.toContain('<i>alice');
  });

  it('records a control without a password with no user, and a refused control not at all', async () => {
    // A cancelled campaign's page has no form: the token of its page before is posted again.
    const token = await formToken(open.url, 'hist-open');
    expect(await control(open.url, 'hist-open', 'cancel', {}, token)).toBe(303);
    expect(await control(open.url, 'hist-open', 'pause', {}, token)).toBe(409);
    const entries = await history.list('hist-open');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({ action: 'cancel', actor: { kind: 'dashboard', name: '' }, detail: '3 rows not yet fed cancelled' });
    expect(await page(open.url, 'hist-open', {})).toContain('<td data-actor="dashboard">dashboard (no password set)</td><td>cancel</td>');
  });
});
