import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { hookDetailPage } from '../../src/dashboard/hooks-detail-page.js';
import { hooksPage } from '../../src/dashboard/hooks-page.js';
import { PAGE_HEADERS } from '../../src/dashboard/layout.js';
import type { HookView } from '../../src/hooks/hook.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { answeredCampaign } from '../support/api-campaigns.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { waitFor } from '../support/waiting.js';
import { RelayReceiver } from './relay-receiver.js';

const HOSTILE = '<script>alert(1)</script>';

/** A hook whose every text is markup, as a page must never run it. */
const HOSTILE_HOOK: HookView = {
  name: `"><img src=x onerror=alert(2)>`,
  url: `https://crm.example.com/${HOSTILE}`,
  events: ['row.sent'],
  campaignId: HOSTILE,
  createdAt: 0,
  figures: { queued: 1, delivered: 0, retried: 2, dead: 1, waiting: 0 },
};

/**
 * The Hooks pages as `campaign serve` renders them (no browser): the list with figures, adding
 * (the secret once), test, dead letters, remove.
 */
describe('dashboard: the Hooks pages', () => {
  const api = new ApiTestService('dashboard-hooks');
  let receiver: RelayReceiver;
  let base = '';

  beforeAll(async () => {
    receiver = await RelayReceiver.start('ok');
    // A failing delivery is given up on after about 2 s: the dead letters come within the test.
    await api.start({ ...CAMPAIGN_API_ENV, HOOK_RETRY_HOURS: '0.0005' });
    base = api.service!.url;
  });
  afterAll(async () => {
    await api.close();
    await receiver.close();
  });

  const get = async (path: string) => {
    const answer = await fetch(`${base}${path}`, { redirect: 'manual' });
    return { status: answer.status, page: await answer.text(), answer };
  };
  const post = (path: string, form: Record<string, string>) =>
    fetch(`${base}${path}`, {
      method: 'POST',
      body: new URLSearchParams(form).toString(),
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      redirect: 'manual',
    });
  const tokenOf = (page: string) => {
    const token = /name="csrf" value="([^"]+)"/.exec(page)?.[1];
    if (token === undefined) throw new Error(`no form token on the page:\n${page}`);
    return token;
  };
  const figure = (page: string, name: string) => new RegExp(`data-figure="${name}">([^<]*)<`).exec(page)?.[1];

  it('shows no hook at first, a nav link, the add form with every event, and the pages’ CSP', async () => {
    const { status, page, answer } = await get('/hooks');
    expect(status).toBe(200);
    expect(answer.headers.get('content-security-policy')).toBe(PAGE_HEADERS['content-security-policy']);
    expect(page).toContain('<a href="/audiences">Audiences</a> <a href="/hooks">Hooks</a>');
    expect(page).toContain('No hook yet');
    expect(page.match(/type="checkbox" name="event:/g)).toHaveLength(11);
    expect(page.match(/<script[^>]*>/g)?.every((tag) => / src="/.test(tag))).toBe(true);
  });

  it('adds a hook only with the page’s token, and shows its secret that once', async () => {
    const token = tokenOf((await get('/hooks')).page);
    const form = { url: receiver.url('/crm'), 'event:campaign.paused': '1', 'event:campaign.cancelled': '1', name: 'crm' };
    expect((await post('/hooks', { ...form, csrf: 'forged' })).status).toBe(403);
    expect((await get('/hooks/crm')).status).toBe(404);

    const added = await post('/hooks', { ...form, csrf: token });
    expect(added.status).toBe(200);
    expect(added.headers.get('cache-control')).toBe('no-store');
    const page = await added.text();
    const secret = /<code id="hook-secret">([^<]+)<\/code>/.exec(page)?.[1] ?? '';
    expect(secret.length).toBeGreaterThanOrEqual(32);
    expect(page).toContain('It is shown this once');
    expect(page).toContain('<a href="/hooks/crm">crm</a>');
    expect(page).toContain('campaign.paused, campaign.cancelled');

    for (const path of ['/hooks', '/hooks/crm']) {
      const again = await get(path);
      expect(again.status).toBe(200);
      expect(again.page).not.toContain(secret);
      expect(again.page).not.toContain('hook-secret');
    }
    const list = (await get('/hooks')).page;
    expect(list).toContain(`<code>${receiver.url('/crm')}</code>`);
    expect(figure(list, 'queued')).toBe('0');
    expect(figure(list, 'lagSeconds')).toBe('–');
  });

  it('refuses a form it cannot add, saying why in the form’s words and keeping what was typed', async () => {
    const token = tokenOf((await get('/hooks')).page);
    const none = await post('/hooks', { url: receiver.url('/other'), name: 'other', csrf: token });
    expect(none.status).toBe(422);
    const page = await none.text();
    expect(page).toMatch(/<p class="error" role="alert">Events: name at least one event/);
    expect(page).toContain(`value="${receiver.url('/other')}"`);
    const taken = await post('/hooks', { url: receiver.url('/x'), 'event:row.sent': '1', name: 'crm', csrf: token });
    expect(taken.status).toBe(422);
    expect(await taken.text()).toContain('Name crm: a hook of that name exists');
    expect((await get('/hooks/other')).status).toBe(404);
  });

  it('shows the figures of delivered events, and a test send’s answer', async () => {
    await answeredCampaign(new RedisLedger(api.redis, api.prefix), 'paged', ['sent', 'queued']);
    expect((await api.call('/campaigns/paged/pause', { method: 'POST', scope: 'send' })).status).toBe(200);
    const list = await waitFor(async () => (await get('/hooks')).page, {
      what: 'the paused event delivered, on the list',
      until: (page) => figure(page, 'delivered') === '1',
      timeoutMs: 20_000,
      intervalMs: 200,
    });
    expect(figure(list, 'queued')).toBe('1');
    expect(figure(list, 'waiting')).toBe('0');
    expect(figure(list, 'lagSeconds')).toMatch(/^\d+s$/);

    const token = tokenOf((await get('/hooks/crm')).page);
    const tested = await post('/hooks/crm/test', { csrf: token });
    expect(tested.status).toBe(200);
    expect(await tested.text()).toContain('Test event delivered: the receiver answered HTTP 200.');
    expect((await post('/hooks/crm/test', { csrf: 'forged' })).status).toBe(403);
  });

  it('lists dead letters and delivers them again from the hook’s page', async () => {
    receiver.mode = 'fail';
    expect((await api.call('/campaigns/paged/cancel', { method: 'POST', scope: 'send' })).status).toBe(200);
    const page = await waitFor(async () => (await get('/hooks/crm')).page, {
      what: 'the cancelled event among the dead letters',
      until: (text) => text.includes('<td>campaign.cancelled</td>'),
      timeoutMs: 30_000,
      intervalMs: 250,
    });
    expect(figure(page, 'dead')).toBe('1');
    expect(page).toContain('<td>HTTP 500</td>');

    receiver.mode = 'ok';
    const redelivered = await post('/hooks/crm/redeliver', { csrf: tokenOf(page) });
    expect({ status: redelivered.status, location: redelivered.headers.get('location') }).toStrictEqual({
      status: 303,
      location: '/hooks/crm?redelivered=1',
    });
    expect((await get('/hooks/crm?redelivered=1')).page).toContain('1 dead letter put back to be delivered again.');
    await waitFor(async () => (await get('/hooks/crm')).page, {
      what: 'the dead letter delivered again',
      until: (text) => figure(text, 'delivered') === '2' && text.includes('No dead letter.'),
      timeoutMs: 30_000,
    });
  }, 60_000);

  it('removes a hook with the page’s token', async () => {
    const page = (await get('/hooks/crm')).page;
    expect(page).toContain('data-confirm="Remove hook crm, its waiting events and its dead letters?"');
    expect((await post('/hooks/crm/remove', { csrf: 'forged' })).status).toBe(403);
    const removed = await post('/hooks/crm/remove', { csrf: tokenOf(page) });
    expect({ status: removed.status, location: removed.headers.get('location') }).toStrictEqual({
      status: 303,
      location: '/hooks?removed=crm',
    });
    const list = (await get('/hooks?removed=crm')).page;
    expect(list).toContain('Hook crm removed');
    expect(list).toContain('No hook yet');
    expect((await get('/hooks/crm')).status).toBe(404);
    expect((await post('/hooks/crm/remove', { csrf: tokenOf(list) })).status).toBe(404);
  });

  it('escapes every value of a hook and of its dead letters', async () => {
    const pages = [
      hooksPage({ hooks: [HOSTILE_HOOK], csrfToken: 'token"<', added: { hook: HOSTILE_HOOK, secret: '<b>s</b>' } }).value,
      hookDetailPage({
        hook: HOSTILE_HOOK,
        csrfToken: 't',
        failed: [
          {
            event: { id: HOSTILE, type: 'row.sent', occurred_at: '', campaign_id: HOSTILE, phone_number_id: '1', phone: HOSTILE },
            failedAt: 0,
            reason: HOSTILE,
          },
        ],
        tested: { ok: false, status: 0, reason: HOSTILE },
      }).value,
    ];
    for (const page of pages) {
      expect(page).not.toMatch(/<script>|<img|<b>/);
      expect(page).toContain('&lt;script&gt;alert(1)&lt;/script&gt;');
    }
    expect((await get(`/hooks/${encodeURIComponent(HOSTILE)}`)).page).toContain('No hook &lt;script&gt;');
  });
});
