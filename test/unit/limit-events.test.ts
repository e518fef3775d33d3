import { describe, expect, it } from 'vitest';
import { parseWebhook } from '../../src/webhooks/webhook-events.js';

/** One webhook POST of one change, as Meta sends account-level fields: entry.id is the WABA, no metadata. */
const post = (field: string, value: Record<string, unknown>) =>
  JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [{ id: '102290129340398', time: 1767225600, changes: [{ field, value }] }],
  });

describe('messaging-limit webhooks', () => {
  it('business_capability_update: the new limit of the portfolio (v24 field first, then the per-phone one of v23)', () => {
    const parsed = parseWebhook(
      post('business_capability_update', { max_daily_conversations_per_business: 2000, max_phone_numbers_per_business: 2 }),
    );
    expect(parsed).toMatchObject({
      ok: true,
      events: { limits: [{ field: 'business_capability_update', accountId: '102290129340398', limit: 2000 }], ignored: 0, malformed: 0 },
    });
    const older = parseWebhook(post('business_capability_update', { max_daily_conversation_per_phone: 10000 }));
    expect(older).toMatchObject({ ok: true, events: { limits: [{ limit: 10_000 }] } });
    for (const [value, limit] of [
      ['TIER_100K', 100_000],
      ['TIER_UNLIMITED', 'unlimited'],
      [-1, 'unlimited'],
      ['250', 250],
    ] as const) {
      expect(
        parseWebhook(post('business_capability_update', { max_daily_conversations_per_business: value })),
        String(value),
      ).toMatchObject({ ok: true, events: { limits: [{ limit }] } });
    }
  });

  it('account_update, or a capability update with no limit it understands: an update with no value (read again from the API)', () => {
    const account = parseWebhook(post('account_update', { event: 'VOLUME_BASED_PRICING_TIER_UPDATE', phone_number_id: '106540352242922' }));
    expect(account).toMatchObject({
      ok: true,
      events: { limits: [{ field: 'account_update', phoneNumberId: '106540352242922' }], ignored: 0 },
    });
    expect(account.ok && account.events.limits[0]?.limit).toBeUndefined();
    const unknown = parseWebhook(post('business_capability_update', { max_daily_conversations_per_business: 'lots' }));
    expect(unknown.ok && unknown.events.limits).toEqual([{ field: 'business_capability_update', accountId: '102290129340398' }]);
    // Other account-level fields are still only counted.
    expect(parseWebhook(post('account_alerts', { event: 'INCREASED_CAPABILITIES_ELIGIBILITY_DEFERRED' }))).toMatchObject({
      ok: true,
      events: { limits: [], ignored: 1 },
    });
  });
});
