import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BUSINESS_ACCOUNT_IDS, type Sandbox } from '../../src/sandbox/index.js';
import { PHONE_NUMBER_ID, TOKEN, getJson, orderUpdate, send, startTestSandbox, type JsonReply, type ReplyBody } from './sandbox-helpers.js';

/**
 * Graph's versions over real HTTP (Meta's Platform Versioning page): an expired version is
 * served as the oldest one still available, a path without a version as the newest, and a
 * version Graph never had is an unknown path (2500). The sandbox's clock is set, so which
 * versions are available does not depend on the day the test runs.
 */
let sandbox: Sandbox | undefined;

afterEach(async () => {
  await sandbox?.close();
  sandbox = undefined;
});

let now = Date.parse('2026-11-25T12:00:00Z');
const clock = () => now;

/** A send to `/{phone-number-id}/messages` with no version segment at all. */
async function sendUnversioned(s: Sandbox, body: unknown): Promise<JsonReply> {
  const response = await request(`${s.url}/${PHONE_NUMBER_ID}/messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(body),
  });
  return { status: response.statusCode, body: (await response.body.json()) as ReplyBody };
}

const servedAs = (s: Sandbox): number | undefined => s.accepted().at(-1)?.apiMajor;

describe('sandbox API versions (Meta: Platform Versioning)', () => {
  it('serves v17.0, v18.0, v19.0, v1.0 and v2.12, long expired, as the oldest version still available', async () => {
    now = Date.parse('2026-11-25T12:00:00Z');
    sandbox = await startTestSandbox({ clock, messagesPerSecond: 0, pairLimit: false });
    // v20.0 ended 2026-09-24: v21.0 is the oldest still served.
    for (const [i, version] of ['v17.0', 'v18.0', 'v19.0', 'v1.0', 'v2.12', 'v20.0'].entries()) {
      const reply = await send(sandbox, orderUpdate(`+4477009001${10 + i}`), { version });
      expect(reply.status, version).toBe(200);
      expect(servedAs(sandbox), version).toBe(21);
    }
    now = Date.parse('2027-02-01T12:00:00Z');
    expect((await send(sandbox, orderUpdate('+447700900199'), { version: 'v19.0' })).status).toBe(200);
    // v21.0 ended 2027-01-21 in its turn.
    expect(servedAs(sandbox)).toBe(22);
  });

  it('serves a path with no version as the newest version released', async () => {
    now = Date.parse('2026-11-25T12:00:00Z');
    sandbox = await startTestSandbox({ clock });
    const reply = await sendUnversioned(sandbox, orderUpdate());
    expect(reply.status).toBe(200);
    expect(reply.body.messages?.[0]?.id).toMatch(/^wamid\./);
    expect(servedAs(sandbox)).toBe(26);
    // Before v26.0's release, the newest was v25.0.
    now = Date.parse('2026-07-01T12:00:00Z');
    expect((await sendUnversioned(sandbox, orderUpdate('+447700900124'))).status).toBe(200);
    expect(servedAs(sandbox)).toBe(25);
  });

  it('answers 2500 for versions Graph never had: v99.0, v2.13, v19.1, v27.0', async () => {
    now = Date.parse('2026-11-25T12:00:00Z');
    sandbox = await startTestSandbox({ clock });
    for (const version of ['v99.0', 'v2.13', 'v19.1', 'v27.0', 'v019.0']) {
      const reply = await send(sandbox, orderUpdate(), { version });
      expect(reply.status, version).toBe(400);
      expect(reply.body.error, version).toMatchObject({ code: 2500, type: 'OAuthException' });
    }
    expect(sandbox.accepted()).toHaveLength(0);
  });

  it("reads the phone number's fields as the version the call is served as, with or without a version", async () => {
    now = Date.parse('2026-11-25T12:00:00Z');
    sandbox = await startTestSandbox({ clock, messagingLimitTier: 'TIER_10K' });
    const fields = 'fields=whatsapp_business_manager_messaging_limit';
    // No version: the newest (v26.0) has the field.
    const newest = await getJson<Record<string, unknown>>(`${sandbox.url}/${PHONE_NUMBER_ID}?${fields}`);
    expect(newest).toEqual({ status: 200, body: { id: PHONE_NUMBER_ID, whatsapp_business_manager_messaging_limit: 'TIER_10K' } });
    // v19.0 is served as v21.0, which does not have it yet (v24.0 added it).
    const old = await getJson(`${sandbox.url}/v19.0/${PHONE_NUMBER_ID}?${fields}`);
    expect(old.status).toBe(400);
    expect(old.body.error?.code).toBe(100);
    const tier = await getJson<Record<string, unknown>>(`${sandbox.url}/v19.0/${PHONE_NUMBER_ID}?fields=messaging_limit_tier`);
    expect(tier.body).toEqual({ id: PHONE_NUMBER_ID, messaging_limit_tier: 'TIER_10K' });
  });

  it('lists templates without a version, and refuses a version Graph never had there too', async () => {
    now = Date.parse('2026-11-25T12:00:00Z');
    sandbox = await startTestSandbox({ clock });
    const waba = DEFAULT_BUSINESS_ACCOUNT_IDS[0] ?? '';
    const list = await getJson(`${sandbox.url}/${waba}/message_templates?name=order_update`);
    expect(list.status).toBe(200);
    expect(list.body.data?.map((t) => t.name)).toEqual(['order_update', 'order_update']);
    const expired = await getJson(`${sandbox.url}/v18.0/${waba}/message_templates?name=order_update`);
    expect(expired.status).toBe(200);
    const unknown = await getJson(`${sandbox.url}/v99.0/${waba}/message_templates`);
    expect(unknown.body.error?.code).toBe(2500);
  });
});
