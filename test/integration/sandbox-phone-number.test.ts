import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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

  beforeAll(async () => {
    sandbox = await startTestSandbox({ messagingLimitTier: 'TIER_2K' });
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
      expect(await get(`/v23.0/${PHONE_NUMBER_ID}?fields=messaging_limit_tier,whatsapp_business_manager_messaging_limit`)).toEqual({
        status: 200,
        body: { id: PHONE_NUMBER_ID, messaging_limit_tier: 'TIER_2K', whatsapp_business_manager_messaging_limit: 'TIER_2K' },
      });
      expect(Object.keys((await get(`/v23.0/${PHONE_NUMBER_ID}`)).body).sort()).toEqual(['display_phone_number', 'id', 'status']);
      const unknownField = await get(`/v23.0/${PHONE_NUMBER_ID}?fields=id,tier`);
      expect(unknownField.status).toBe(400);
      expect(unknownField.body.error).toMatchObject({
        code: 100,
        message: '(#100) Tried accessing nonexisting field (tier) on node type (WhatsAppBusinessPhoneNumber)',
      });
      expect((await get('/v23.0/999?fields=messaging_limit_tier')).body.error).toMatchObject({ code: 100, error_subcode: 33 });
      expect((await get(`/v23.0/${PHONE_NUMBER_ID}?fields=id`, null)).status).toBe(401);
    },
  );

  it("fetchMessagingLimit reads the tier as a number of users; a refused token is a CloudApiError with Meta's code", async () => {
    const ask = (token: string) =>
      fetchMessagingLimit({
        baseUrl: sandbox.url,
        apiVersion: 'v23.0',
        phoneNumberId: PHONE_NUMBER_ID,
        accessToken: new Secret(token),
        timeoutMs: 5000,
      });
    expect(await ask(TOKEN)).toBe(2000);
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
