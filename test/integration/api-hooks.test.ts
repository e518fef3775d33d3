import { createHmac, timingSafeEqual } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  addHookRoute,
  failedHookEventsRoute,
  getHookRoute,
  listHooksRoute,
  redeliverHookRoute,
  testHookRoute,
} from '../../src/api/routes/hooks-routes.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { answeredCampaign } from '../support/api-campaigns.js';
import { documented, refused } from '../support/api-documented.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { waitFor } from '../support/waiting.js';
import { RelayReceiver, type Received } from './relay-receiver.js';

type Scope = 'read' | 'send' | 'admin' | 'none';

/** A batch as a hook's receiver reads it. */
interface Batch {
  hook: string;
  sent_at: string;
  events: { id: string; type: string; campaign_id?: string; reason?: string }[];
}

/** Whether `X-Campaign-Signature` is the HMAC-SHA256 of the exact bytes with the hook's secret, checked as a receiver would. */
function signedWith(received: Received, secret: string): boolean {
  const header = received.headers['x-campaign-signature'];
  if (typeof header !== 'string' || !header.startsWith('sha256=')) return false;
  const expected = createHmac('sha256', secret).update(received.body).digest();
  const given = Buffer.from(header.slice('sha256='.length), 'hex');
  return given.length === expected.length && timingSafeEqual(given, expected);
}

const batchOf = (received: Received) => JSON.parse(received.body.toString('utf8')) as Batch;

/**
 * The hook routes over real HTTP (a real service with its hook delivery, real Redis, a local
 * receiver): what `campaign hooks …` does, each route's scope, its refusals, the secret answered
 * once, and a dead letter made by a failing receiver, listed and delivered again.
 */
describe('HTTP API: outbound hooks', () => {
  const api = new ApiTestService('api-hooks');
  let receiver: RelayReceiver;
  let secret = '';

  beforeAll(async () => {
    receiver = await RelayReceiver.start('ok');
    // A failing delivery is given up on after about 2 s (not 24 h): the dead letters come within the test.
    await api.start({ ...CAMPAIGN_API_ENV, HOOK_RETRY_HOURS: '0.0005' });
  });
  afterAll(async () => {
    expect(api.checkAnswers()).toStrictEqual([]);
    await api.close();
    await receiver.close();
  });

  const call = (path: string, method = 'GET', scope: Scope = 'admin', body?: unknown) =>
    api.call(path, {
      method,
      scope,
      ...(body === undefined ? {} : { body: JSON.stringify(body), headers: { 'content-type': 'application/json' } }),
    });

  it('lists no hook at first; adding needs an admin token, reading a read one', async () => {
    expect(await documented(listHooksRoute, await call('/hooks', 'GET', 'read'), 200)).toStrictEqual({ hooks: [] });
    const body = { url: receiver.url('/crm'), events: ['all'] };
    await refused(await call('/hooks', 'POST', 'send', body), 403, 'API_SCOPE_REFUSED');
    await refused(await call('/hooks', 'POST', 'none', body), 401, 'API_TOKEN_MISSING');
    await refused(await call('/hooks', 'GET', 'none'), 401, 'API_TOKEN_MISSING');
    for (const [method, path] of [
      ['DELETE', '/hooks/crm'],
      ['POST', '/hooks/crm/test'],
      ['POST', '/hooks/crm/redeliver'],
    ] as const)
      await refused(await call(path, method, 'send'), 403, 'API_SCOPE_REFUSED');
  });

  it('adds a hook: 201 with Location and its secret, which no other answer holds', async () => {
    const answer = await call('/hooks', 'POST', 'admin', { url: receiver.url('/crm'), events: ['campaign.*', 'row.failed'], name: 'crm' });
    expect(answer.headers.get('location')).toBe('/api/v1/hooks/crm');
    const added = (await documented(addHookRoute, answer, 201)) as { secret: string; events: string[] };
    expect(added).toMatchObject({
      name: 'crm',
      url: receiver.url('/crm'),
      events: ['row.failed', 'campaign.started', 'campaign.paused', 'campaign.completed', 'campaign.cancelled'],
      campaignId: null,
      figures: { queued: 0, delivered: 0, retried: 0, dead: 0, waiting: 0, lagSeconds: null },
    });
    secret = added.secret;
    expect(secret.length).toBeGreaterThanOrEqual(32);

    const listed = await call('/hooks', 'GET', 'read');
    const text = await listed.clone().text();
    expect(await documented(listHooksRoute, listed, 200)).toMatchObject({ hooks: [{ name: 'crm', url: receiver.url('/crm') }] });
    const one = await call('/hooks/crm', 'GET', 'read');
    const oneText = await one.clone().text();
    expect(await documented(getHookRoute, one, 200)).toMatchObject({ name: 'crm', events: added.events });
    for (const shown of [text, oneText]) {
      expect(shown).not.toContain(secret);
      expect(shown).not.toMatch(/secret/i);
    }
  });

  it('refuses what it cannot add, naming the field: a URL, an event, a name in use, a campaign it does not have', async () => {
    const add = (body: Record<string, unknown>) => call('/hooks', 'POST', 'admin', { url: receiver.url('/x'), events: ['all'], ...body });
    // Forms the document states: 400 before anything is read.
    expect((await refused(await add({ url: 'ftp://files.example.com/in' }), 400, 'API_REQUEST_INVALID')).problems?.[0]?.field).toBe('url');
    expect((await refused(await add({ events: ['row.bounced'] }), 400, 'API_REQUEST_INVALID')).problems?.[0]?.field).toBe('events.0');
    expect((await refused(await add({ events: [] }), 400, 'API_REQUEST_INVALID')).problems?.[0]?.field).toBe('events');
    expect((await refused(await add({ name: 'a b' }), 400, 'API_REQUEST_INVALID')).problems?.[0]?.field).toBe('name');
    // Of the form, but not a URL: the use case's refusal, in the API's words.
    const notUrl = await refused(await add({ url: 'http://crm.example.com:port/in' }), 422, 'HOOK_INVALID');
    expect(notUrl.problems).toMatchObject([{ code: 'HOOK_INVALID', field: 'url' }]);
    expect(notUrl.detail).not.toContain('--');
    const taken = await refused(await add({ name: 'crm' }), 409, 'HOOK_INVALID');
    expect(taken.problems).toMatchObject([{ field: 'name' }]);
    expect(taken.detail).toContain('"crm" exists');
    const noCampaign = await refused(await add({ campaignId: 'nosuch' }), 422, 'CAMPAIGN_NOT_FOUND');
    expect(noCampaign.problems).toMatchObject([{ field: 'campaignId' }]);
    expect((await documented(listHooksRoute, await call('/hooks'), 200)) as { hooks: unknown[] }).toMatchObject({
      hooks: [{ name: 'crm' }],
    });
    for (const [method, path] of [
      ['GET', '/hooks/nosuch'],
      ['DELETE', '/hooks/nosuch'],
      ['POST', '/hooks/nosuch/test'],
      ['GET', '/hooks/nosuch/failed'],
      ['POST', '/hooks/nosuch/redeliver'],
    ] as const)
      await refused(await call(path, method), 404, 'HOOK_NOT_FOUND');
  });

  it('tests a hook: one signed hook.test event, and what the receiver answered', async () => {
    receiver.mode = 'ok';
    const before = receiver.received.length;
    expect(await documented(testHookRoute, await call('/hooks/crm/test', 'POST'), 200)).toStrictEqual({
      ok: true,
      status: 200,
      reason: null,
    });
    const got = receiver.received.slice(before);
    expect(got).toHaveLength(1);
    expect(signedWith(got[0]!, secret)).toBe(true);
    expect(signedWith(got[0]!, 'another secret')).toBe(false);
    expect(batchOf(got[0]!)).toMatchObject({ hook: 'crm', events: [{ type: 'hook.test' }] });

    receiver.mode = 'fail';
    expect(await documented(testHookRoute, await call('/hooks/crm/test', 'POST'), 200)).toMatchObject({ ok: false, status: 500 });
    receiver.mode = 'ok';
  });

  it("lists a failing receiver's dead letters and delivers them again, with the same IDs", async () => {
    receiver.mode = 'fail';
    const ledger = new RedisLedger(api.redis, api.prefix);
    // Made after the hook: the campaign emits events; its pause is one the hook takes.
    await answeredCampaign(ledger, 'hooked', ['sent', 'queued']);
    expect((await call('/campaigns/hooked/pause', 'POST', 'send', { reason: 'for the hook' })).status).toBe(200);
    const failed = await waitFor(
      async () => {
        const answer = (await documented(failedHookEventsRoute, await call('/hooks/crm/failed', 'GET', 'read'), 200)) as {
          failed: { event: { id: string; type: string } }[];
        };
        return answer.failed.some((dead) => dead.event.type === 'campaign.paused') ? answer : undefined;
      },
      { what: 'the campaign.paused event among the dead letters', timeoutMs: 30_000, intervalMs: 250 },
    );
    expect(failed).toMatchObject({
      hook: 'crm',
      failed: expect.arrayContaining([
        expect.objectContaining({
          event: expect.objectContaining({ type: 'campaign.paused', campaign_id: 'hooked', reason: 'for the hook' }) as unknown,
        }),
      ]) as unknown,
    });
    const ids = failed.failed.map((dead) => dead.event.id);
    const figures = ((await documented(getHookRoute, await call('/hooks/crm'), 200)) as { figures: Record<string, number> }).figures;
    expect(figures.dead).toBe(ids.length);
    expect(figures.retried).toBeGreaterThan(0);

    receiver.mode = 'ok';
    const accepted = receiver.accepted().length;
    expect(await documented(redeliverHookRoute, await call('/hooks/crm/redeliver', 'POST'), 200)).toStrictEqual({
      redelivered: ids.length,
    });
    const delivered = await waitFor(
      () =>
        receiver
          .accepted()
          .slice(accepted)
          .flatMap((body) => (JSON.parse(body.toString('utf8')) as Batch).events.map((event) => event.id)),
      { what: 'the dead letters delivered again', until: (got) => ids.every((id) => got.includes(id)), timeoutMs: 30_000 },
    );
    expect(delivered.filter((id) => ids.includes(id)).sort()).toStrictEqual([...ids].sort());
    expect((await documented(failedHookEventsRoute, await call('/hooks/crm/failed'), 200)) as { failed: unknown[] }).toMatchObject({
      failed: [],
    });
  }, 60_000);

  it('removes a hook: 204, then it is gone', async () => {
    const removed = await call('/hooks/crm', 'DELETE');
    expect(removed.status).toBe(204);
    await refused(await call('/hooks/crm'), 404, 'HOOK_NOT_FOUND');
    await refused(await call('/hooks/crm', 'DELETE'), 404, 'HOOK_NOT_FOUND');
    expect(await documented(listHooksRoute, await call('/hooks'), 200)).toStrictEqual({ hooks: [] });
  });
});
