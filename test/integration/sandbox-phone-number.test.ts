import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { request } from 'undici';
import { fetchMessagingLimit, parseMessagingTier } from '../../src/cloud-api/messaging-limit-client.js';
import { CloudApiError } from '../../src/cloud-api/cloud-api-errors.js';
import { Secret } from '../../src/config/secret.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { PHONE_NUMBER_ID, TOKEN, startTestSandbox } from './sandbox-helpers.js';

/**
 * GET /{version}/{phone-number-id} on the sandbox (Meta's "Get WhatsApp Account Number"), and
 * the client that reads the messaging limit from it.
 */
describe('the phone number node and its messaging limit', () => {
  let sandbox: Sandbox;

  // The sandbox's clock, which decides which API versions it serves: late 2026 unless a test moves it.
  const LATE_2026 = Date.parse('2026-11-25T12:00:00Z');
  let now = LATE_2026;

  beforeAll(async () => {
    sandbox = await startTestSandbox({ messagingLimitTier: 'TIER_2K', clock: () => now });
  });

  afterEach(() => {
    now = LATE_2026;
  });

  afterAll(async () => {
    await sandbox?.close();
  });

  const get = async (path: string, token: string | null = TOKEN) => {
    const response = await request(`${sandbox.url}${path}`, { headers: token === null ? {} : { authorization: `Bearer ${token}` } });
    return {
      status: response.statusCode,
      body: (await response.body.json()) as Record<string, unknown> & { error?: { code: number; message: string; error_subcode?: number } },
    };
  };

  it(
    "answers the fields asked for, Graph's defaults without `fields`; a field Graph does not " +
      'have is 100; an unknown number 100/33; no token 401',
    async () => {
      expect(await get(`/v25.0/${PHONE_NUMBER_ID}?fields=messaging_limit_tier,whatsapp_business_manager_messaging_limit`)).toEqual({
        status: 200,
        body: { id: PHONE_NUMBER_ID, messaging_limit_tier: null, whatsapp_business_manager_messaging_limit: 'TIER_2K' },
      });
      expect(Object.keys((await get(`/v25.0/${PHONE_NUMBER_ID}`)).body).sort()).toEqual(['display_phone_number', 'id', 'status']);
      const unknownField = await get(`/v25.0/${PHONE_NUMBER_ID}?fields=id,tier`);
      expect(unknownField.status).toBe(400);
      expect(unknownField.body.error).toMatchObject({
        code: 100,
        message: '(#100) Tried accessing nonexisting field (tier) on node type (WhatsAppBusinessPhoneNumber)',
      });
      expect((await get('/v25.0/999?fields=messaging_limit_tier')).body.error).toMatchObject({
        code: 100,
        error_subcode: 33,
        message: expect.stringMatching(/^Unsupported get request\. Object with ID '999' does not exist/) as unknown,
      });
      expect((await get(`/v25.0/${PHONE_NUMBER_ID}?fields=id`, null)).status).toBe(401);
    },
  );

  const limitFields = 'fields=messaging_limit_tier,whatsapp_business_manager_messaging_limit';

  it(
    'the messaging limit by version: before v24.0 only messaging_limit_tier (the other is 100); from v24.0 ' +
      'whatsapp_business_manager_messaging_limit, messaging_limit_tier null',
    async () => {
      for (const version of ['v21.0', 'v22.0', 'v23.0']) {
        expect(await get(`/${version}/${PHONE_NUMBER_ID}?fields=messaging_limit_tier`)).toEqual({
          status: 200,
          body: { id: PHONE_NUMBER_ID, messaging_limit_tier: 'TIER_2K' },
        });
        const refused = await get(`/${version}/${PHONE_NUMBER_ID}?${limitFields}`);
        expect(refused.status).toBe(400);
        expect(refused.body.error).toMatchObject({
          code: 100,
          message:
            '(#100) Tried accessing nonexisting field (whatsapp_business_manager_messaging_limit) ' +
            'on node type (WhatsAppBusinessPhoneNumber)',
        });
      }
      for (const version of ['v24.0', 'v25.0', 'v26.0'])
        expect((await get(`/${version}/${PHONE_NUMBER_ID}?${limitFields}`)).body).toEqual({
          id: PHONE_NUMBER_ID,
          messaging_limit_tier: null,
          whatsapp_business_manager_messaging_limit: 'TIER_2K',
        });
    },
  );

  it('an expired version is answered as the oldest one still served; one never released or not yet released is 2500', async () => {
    // v20.0 ended 2026-09-24: it answers as v21.0 does, field for field and error for error.
    for (const query of ['', '?fields=messaging_limit_tier,quality_rating', `?${limitFields}`]) {
      const v20 = await get(`/v20.0/${PHONE_NUMBER_ID}${query}`);
      const v21 = await get(`/v21.0/${PHONE_NUMBER_ID}${query}`);
      expect({ ...v20, body: { ...v20.body, error: { ...v20.body.error, fbtrace_id: '' } } }).toEqual({
        ...v21,
        body: { ...v21.body, error: { ...v21.body.error, fbtrace_id: '' } },
      });
    }
    expect((await get(`/v20.0/${PHONE_NUMBER_ID}?fields=messaging_limit_tier`)).body.messaging_limit_tier).toBe('TIER_2K');
    // Past v23.0's end (2027-10-08), v20.0 to v23.0 answer as v24.0: the limit is the new field's.
    now = Date.parse('2027-10-09T00:00:00Z');
    for (const version of ['v20.0', 'v23.0'])
      expect((await get(`/${version}/${PHONE_NUMBER_ID}?${limitFields}`)).body).toMatchObject({
        messaging_limit_tier: null,
        whatsapp_business_manager_messaging_limit: 'TIER_2K',
      });
    now = LATE_2026;
    for (const version of ['v19.1', 'v27.0', 'v99.0']) {
      const unknown = await get(`/${version}/${PHONE_NUMBER_ID}?fields=id`);
      expect(unknown.status).toBe(400);
      expect(unknown.body.error).toMatchObject({ code: 2500, message: `Unknown path components: /${version}/${PHONE_NUMBER_ID}` });
    }
    // Before 2026-07-29, v26.0 did not exist yet.
    now = Date.parse('2026-07-01T00:00:00Z');
    expect((await get(`/v26.0/${PHONE_NUMBER_ID}?fields=id`)).body.error).toMatchObject({ code: 2500 });
    expect((await get(`/v25.0/${PHONE_NUMBER_ID}?fields=id`)).status).toBe(200);
  });

  it("fetchMessagingLimit reads the tier (users) at v23.0, v25.0 and v26.0; a refused token is Meta's CloudApiError", async () => {
    const ask = (token: string, apiVersion = 'v25.0') =>
      fetchMessagingLimit({
        baseUrl: sandbox.url,
        apiVersion,
        phoneNumberId: PHONE_NUMBER_ID,
        accessToken: new Secret(token),
        timeoutMs: 5000,
      });
    expect(await ask(TOKEN, 'v23.0')).toBe(2000);
    expect(await ask(TOKEN, 'v25.0')).toBe(2000);
    expect(await ask(TOKEN, 'v26.0')).toBe(2000);
    const refused = await ask('wrong-token').catch((error: unknown) => error);
    expect(refused).toBeInstanceOf(CloudApiError);
    expect((refused as CloudApiError).metaCode).toBe(190);
    expect(String((refused as CloudApiError).message)).not.toContain('wrong-token');
  });

  it('parseMessagingTier knows every tier name and nothing else', () => {
    expect(['TIER_50', 'TIER_250', 'TIER_1K', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED'].map(parseMessagingTier)).toEqual([
      50,
      250,
      1000,
      2000,
      10_000,
      100_000,
      'unlimited',
    ]);
    for (const bad of ['TIER_', 'tier_1k', 'TIER_1M', '', 1000, undefined]) expect(parseMessagingTier(bad)).toBeUndefined();
  });
});
