import { MockAgent } from 'undici';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CloudApiBadResponseError, CloudApiError } from '../../src/cloud-api/cloud-api-errors.js';
import { fetchMessagingLimit, messagingLimitField } from '../../src/cloud-api/messaging-limit-client.js';
import { Secret } from '../../src/config/secret.js';

const ORIGIN = 'https://graph.test';
const NUMBER = '106540352242922';

let agent: MockAgent;
let asked: string[];

beforeEach(() => {
  agent = new MockAgent();
  agent.disableNetConnect();
  asked = [];
});

afterEach(async () => {
  await agent.close();
});

/** Answers every GET of the number's node with `body`, recording the path and query asked. */
function answer(body: unknown, status = 200): void {
  agent
    .get(ORIGIN)
    .intercept({ path: (p) => p.includes(`/${NUMBER}?`), method: 'GET' })
    .reply((options) => {
      asked.push(decodeURIComponent(options.path));
      return { statusCode: status, data: body as object };
    })
    .persist();
}

const read = (apiVersion: string) =>
  fetchMessagingLimit({
    baseUrl: ORIGIN,
    apiVersion,
    phoneNumberId: NUMBER,
    accessToken: new Secret('t'),
    timeoutMs: 5000,
    dispatcher: agent,
  });

describe('the messaging-limit client', () => {
  it('chooses the field by version: whatsapp_business_manager_messaging_limit from v24.0 on, messaging_limit_tier before', () => {
    expect(['v20.0', 'v21.0', 'v22.0', 'v23.0', 'v23.9'].map(messagingLimitField)).toEqual(Array(5).fill('messaging_limit_tier'));
    expect(['v24.0', 'v25.0', 'v26.0', 'v100.0'].map(messagingLimitField)).toEqual(
      Array(4).fill('whatsapp_business_manager_messaging_limit'),
    );
  });

  it('at v25.0 asks for the current field alone, once, and reads its tier (the deprecated one is null there)', async () => {
    answer({ id: NUMBER, whatsapp_business_manager_messaging_limit: 'TIER_10K', messaging_limit_tier: null });
    expect(await read('v25.0')).toBe(10_000);
    expect(asked).toEqual([`/v25.0/${NUMBER}?fields=whatsapp_business_manager_messaging_limit`]);
  });

  it('at v23.0 asks for messaging_limit_tier alone, once', async () => {
    answer({ id: NUMBER, messaging_limit_tier: 'TIER_UNLIMITED' });
    expect(await read('v23.0')).toBe('unlimited');
    expect(asked).toEqual([`/v23.0/${NUMBER}?fields=messaging_limit_tier`]);
  });

  it('an answer without a tier in the chosen field is a CloudApiBadResponseError naming the field and version', async () => {
    answer({ id: NUMBER, messaging_limit_tier: 'TIER_250', whatsapp_business_manager_messaging_limit: null });
    const error = await read('v24.0').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudApiBadResponseError);
    expect((error as Error).message).toContain('no messaging limit tier in whatsapp_business_manager_messaging_limit at v24.0 (got null)');
    expect(asked).toHaveLength(1);
  });

  it('a refusal (100, no such field) is thrown as the CloudApiError, not retried with another field', async () => {
    answer({ error: { message: '(#100) Tried accessing nonexisting field', type: 'OAuthException', code: 100, fbtrace_id: 'x' } }, 400);
    const error = await read('v23.0').catch((e: unknown) => e);
    expect(error).toBeInstanceOf(CloudApiError);
    expect((error as CloudApiError).metaCode).toBe(100);
    expect(asked).toHaveLength(1);
  });
});
