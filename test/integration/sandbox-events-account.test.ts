import { afterEach, describe, expect, it } from 'vitest';
import type { Sandbox } from '../../src/sandbox/index.js';
import { SANDBOX_WABA_ID } from '../../src/sandbox/webhook-payloads.js';
import { PHONE_NUMBER_ID, getJson, postJson, startTestSandbox } from './sandbox-helpers.js';
import { FAST, SECRET, changesOf, startReceiver, type Receiver } from './sandbox-events-receiver.js';

/**
 * What Meta tells a business about itself: an account-, app- or system-level problem (a
 * `messages` change carrying `errors` and nothing else, Meta's webhooks/reference/messages/errors),
 * and a new messaging limit for the portfolio (`business_capability_update`, v24+), which
 * GET /{phone-number-id} reports from then on.
 */
const OTHER_NUMBER = '106540352242923';
const HREF = '/documentation/business-messaging/whatsapp/support/error-codes';

describe('sandbox events: account errors and capability updates', () => {
  let sandbox: Sandbox | undefined;
  let receiver: Receiver | undefined;

  afterEach(async () => {
    await sandbox?.close();
    await receiver?.close();
    sandbox = undefined;
    receiver = undefined;
  });

  const control = <T>(path: string, body: unknown) => postJson<T & { error?: string }>(`${sandbox?.url ?? ''}/_sandbox/${path}`, body);

  it('POST /_sandbox/account-error posts a signed messages webhook whose value carries errors only', async () => {
    const r = (receiver = await startReceiver());
    sandbox = await startTestSandbox({
      webhooks: { url: r.url, appSecret: SECRET, ...FAST },
      phoneNumberIds: [PHONE_NUMBER_ID, OTHER_NUMBER],
    });
    const known = await control<{ title: string }>('account-error', { code: 131042 });
    expect(known.status).toBe(200);
    expect(known.body).toEqual({
      phone_number_id: PHONE_NUMBER_ID,
      code: 131042,
      title: 'Business eligibility payment issue',
      details: 'There was an error related to your payment method.',
    });
    const worded = await control('account-error', {
      code: 131999,
      title: 'Sandbox trouble',
      details: 'Made up for this test',
      phoneNumberId: OTHER_NUMBER,
    });
    expect(worded.status).toBe(200);

    await r.until('both error webhooks', (posts) => posts.length >= 2);
    expect(r.posts.every((p) => p.signedOk)).toBe(true);
    expect(r.posts.map((p) => p.body.entry.map((e) => e.id))).toEqual([[SANDBOX_WABA_ID], [SANDBOX_WABA_ID]]);
    const byNumber = (id: string) =>
      changesOf(r.posts, 'messages').find((c) => (c.value['metadata'] as { phone_number_id: string }).phone_number_id === id)?.value;
    expect(byNumber(PHONE_NUMBER_ID)).toEqual({
      messaging_product: 'whatsapp',
      metadata: { display_phone_number: expect.stringMatching(/^\d+$/) as unknown, phone_number_id: PHONE_NUMBER_ID },
      errors: [
        {
          code: 131042,
          title: 'Business eligibility payment issue',
          message: 'Business eligibility payment issue',
          error_data: { details: 'There was an error related to your payment method.' },
          href: HREF,
        },
      ],
    });
    expect(byNumber(OTHER_NUMBER)?.['errors']).toEqual([
      { code: 131999, title: 'Sandbox trouble', message: 'Sandbox trouble', error_data: { details: 'Made up for this test' }, href: HREF },
    ]);
    // Nothing but the error: no statuses, messages or contacts beside it.
    expect(changesOf(r.posts, 'messages').every((c) => Object.keys(c.value).sort().join() === 'errors,messaging_product,metadata')).toBe(
      true,
    );
  });

  it('POST /_sandbox/account-error refuses what it cannot word or deliver, posting nothing', async () => {
    const r = (receiver = await startReceiver());
    sandbox = await startTestSandbox({ webhooks: { url: r.url, appSecret: SECRET, ...FAST } });
    const cases: [unknown, number, RegExp][] = [
      [{ code: 131999 }, 400, /does not know Meta's wording of code 131999: give title and details/],
      [{ code: 131999, title: 'Trouble' }, 400, /give details/],
      [{ code: '131042' }, 400, /code/],
      [{ code: 131042, phoneNumberId: '999' }, 400, /not one of the sandbox's numbers/],
      [{ code: 131042, severity: 'high' }, 400, /severity/],
    ];
    for (const [body, status, why] of cases) {
      const reply = await control('account-error', body);
      expect(reply.status, JSON.stringify(body)).toBe(status);
      expect(reply.body.error, JSON.stringify(body)).toMatch(why);
    }
    await sandbox.close();
    sandbox = await startTestSandbox();
    const none = await control('account-error', { code: 130429 });
    expect(none.status).toBe(409);
    expect(none.body.error).toMatch(/No webhook URL is configured, so an account error has nowhere to go/);
    expect(r.posts).toHaveLength(0);
  });

  it('POST /_sandbox/capability-update changes the limit GET /{phone-number-id} reports and posts business_capability_update', async () => {
    const r = (receiver = await startReceiver());
    sandbox = await startTestSandbox({ webhooks: { url: r.url, appSecret: SECRET, ...FAST }, messagingLimitTier: 'TIER_250' });
    const limitOf = async (version: string, field: string) =>
      (await getJson<Record<string, unknown>>(`${sandbox?.url ?? ''}/${version}/${PHONE_NUMBER_ID}?fields=${field}`)).body[field];
    expect(await limitOf('v25.0', 'whatsapp_business_manager_messaging_limit')).toBe('TIER_250');

    const raised = await control('capability-update', { tier: 'TIER_2K' });
    expect(raised.body).toEqual({ tier: 'TIER_2K', max_daily_conversations_per_business: 2000, webhook: 'posted' });
    expect(await limitOf('v25.0', 'whatsapp_business_manager_messaging_limit')).toBe('TIER_2K');
    expect(await limitOf('v23.0', 'messaging_limit_tier')).toBe('TIER_2K');
    await control('capability-update', { tier: 'TIER_UNLIMITED' });
    await control('capability-update', { tier: 'TIER_250' });

    await r.until('three capability webhooks', (posts) => changesOf(posts, 'business_capability_update').length >= 3);
    expect(r.posts.every((p) => p.signedOk)).toBe(true);
    const entries = r.posts.flatMap((p) => p.body.entry);
    expect(entries.every((e) => e.id === SANDBOX_WABA_ID && Number.isInteger(e.time) && (e.time ?? 0) > 1_600_000_000)).toBe(true);
    // Meta's shape: the limit as an integer (-1 unlimited), the phone-number cap that goes with it, no metadata.
    expect(changesOf(r.posts, 'business_capability_update').map((c) => c.value)).toEqual([
      { max_daily_conversations_per_business: 2000, max_phone_numbers_per_waba: 25 },
      { max_daily_conversations_per_business: -1, max_phone_numbers_per_waba: 25 },
      { max_daily_conversations_per_business: 250, max_phone_numbers_per_business: 2 },
    ]);
    expect(await limitOf('v25.0', 'whatsapp_business_manager_messaging_limit')).toBe('TIER_250');

    expect((await control('capability-update', { tier: 'TIER_1K' })).status).toBe(400);
    expect((await control('capability-update', { tier: 'TIER_2K', phoneNumberId: PHONE_NUMBER_ID })).status).toBe(400);
    await sandbox.close();
    // Without a webhook URL the limit still changes: there is nothing to post it to.
    sandbox = await startTestSandbox();
    expect((await control('capability-update', { tier: 'TIER_100K' })).body).toMatchObject({ webhook: 'no webhook URL configured' });
    expect(await limitOf('v25.0', 'whatsapp_business_manager_messaging_limit')).toBe('TIER_100K');
  });
});
