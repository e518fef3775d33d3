import { describe, expect, it } from 'vitest';
import { linksOf } from '../../src/campaigns/settle/user-joins.js';
import { optOutMatcher, parseWebhook, type WebhookEvents } from '../../src/webhooks/webhook-events.js';

/** Webhooks as Meta sends them since April 2026 (reference cloud-api-2026.md §4, §5): business-scoped user IDs, phones optional. */
const stop = optOutMatcher(['STOP']);
const USER = 'US.13491208655302741918';
const PHONE = '16505551234';

function envelope(changes: object[]): string {
  return JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes }] });
}
const change = (value: object, field = 'messages') => ({
  field,
  value: { messaging_product: 'whatsapp', metadata: { display_phone_number: '15550000000', phone_number_id: '111' }, ...value },
});

function parsed(raw: string): WebhookEvents {
  const result = parseWebhook(raw, stop);
  if (!result.ok) throw new Error(result.problem);
  return result.events;
}

describe('parseWebhook: business-scoped user IDs', () => {
  it("statuses of several recipients: each joined to its contact in the change's contacts[] by recipient_id = wa_id", () => {
    const events = parsed(
      envelope([
        change({
          // Beside the statuses, as Meta puts them; in another order than the statuses.
          contacts: [
            { wa_id: '447700900123', user_id: 'GB.77' },
            { profile: { username: 'ana' }, wa_id: PHONE, user_id: USER },
          ],
          statuses: [
            { id: 'wamid.A', status: 'delivered', timestamp: '1780000000', recipient_id: PHONE, recipient_user_id: USER },
            // No recipient_user_id (a send to a phone, as Meta's page of November 2025 has it): the contact gives it.
            { id: 'wamid.B', status: 'read', timestamp: '1780000001', recipient_id: '447700900123' },
          ],
        }),
      ]),
    );
    expect(events.statuses).toEqual([
      { phoneNumberId: '111', wamid: 'wamid.A', kind: 'delivered', at: 1780000000000, recipientId: PHONE, userId: USER },
      { phoneNumberId: '111', wamid: 'wamid.B', kind: 'read', at: 1780000001000, recipientId: '447700900123', userId: 'GB.77' },
    ]);
    expect(events.malformed).toBe(0);
  });

  it('a status is matched by wamid and callback data only: one without any recipient field is still a status', () => {
    const events = parsed(
      envelope([
        change({
          statuses: [
            { id: 'wamid.F', status: 'failed', timestamp: '1780000000', biz_opaque_callback_data: 'c1/4', errors: [{ code: 131026 }] },
          ],
        }),
      ]),
    );
    expect(events.statuses).toEqual([
      {
        phoneNumberId: '111',
        wamid: 'wamid.F',
        kind: 'failed',
        at: 1780000000000,
        callbackData: 'c1/4',
        code: '131026',
        detail: 'failed, by status webhook',
      },
    ]);
  });

  it("a username user's message carries from_user_id and contacts[].user_id, no from: kept with the user ID, not malformed", () => {
    const events = parsed(
      envelope([
        change({
          contacts: [{ profile: { name: 'Ana', username: '@ana' }, user_id: USER }],
          messages: [{ from_user_id: USER, id: 'wamid.IN1', timestamp: '1780000100', type: 'text', text: { body: 'STOP' } }],
        }),
      ]),
    );
    expect(events.malformed).toBe(0);
    expect(events.inbound).toEqual([{ phoneNumberId: '111', userId: USER, wamid: 'wamid.IN1', at: 1780000100000, optOut: true }]);
  });

  it('a message with contacts[].user_id only (no from_user_id, no from) takes the user ID from its contact', () => {
    const events = parsed(
      envelope([
        change({
          contacts: [{ profile: { name: 'Ana' }, user_id: USER }],
          messages: [
            {
              id: 'wamid.IN2',
              timestamp: '1780000100',
              type: 'button',
              button: { payload: 'YES', text: 'Yes' },
              context: { id: 'wamid.A' },
            },
          ],
        }),
      ]),
    );
    expect(events.inbound).toEqual([
      { phoneNumberId: '111', userId: USER, wamid: 'wamid.IN2', at: 1780000100000, optOut: false, replyTo: 'wamid.A', reply: 'YES' },
    ]);
  });

  it('a message with both teaches the link; one with neither phone nor user ID is malformed', () => {
    const events = parsed(
      envelope([
        change({
          contacts: [{ profile: { name: 'Ana' }, wa_id: PHONE, user_id: USER }],
          messages: [{ from: PHONE, from_user_id: USER, id: 'wamid.IN3', timestamp: '1780000100', type: 'text', text: { body: 'hi' } }],
        }),
        change({ messages: [{ id: 'wamid.IN4', timestamp: '1780000100', type: 'text', text: { body: 'hi' } }] }),
      ]),
    );
    expect(events.inbound).toEqual([
      { phoneNumberId: '111', waId: PHONE, userId: USER, wamid: 'wamid.IN3', at: 1780000100000, optOut: false },
    ]);
    expect(events.malformed).toBe(0 + 1);
    expect(linksOf(events.statuses, events.inbound, events.preferences, events.userIdChanges)).toEqual([
      { phoneNumberId: '111', userId: USER, waId: PHONE, at: 1780000100000 },
    ]);
  });

  it('user_preferences with user_id only (a username user), and with both', () => {
    const events = parsed(
      envelope([
        change(
          {
            contacts: [{ profile: { name: 'Ana' }, user_id: USER }],
            user_preferences: [
              {
                user_id: USER,
                value: 'stop',
                category: 'marketing_messages',
                detail: 'User requested to stop marketing messages',
                timestamp: 1780000200,
              },
            ],
          },
          'user_preferences',
        ),
        change(
          { user_preferences: [{ wa_id: PHONE, user_id: 'US.9', value: 'resume', category: 'marketing_messages', timestamp: 1780000300 }] },
          'user_preferences',
        ),
      ]),
    );
    expect(events.malformed).toBe(0);
    expect(events.preferences).toEqual([
      { phoneNumberId: '111', userId: USER, value: 'stop', at: 1780000200000 },
      { phoneNumberId: '111', waId: PHONE, userId: 'US.9', value: 'resume', at: 1780000300000 },
    ]);
  });

  it("a username user's signup (user_id only) is consent, as resume is", () => {
    const events = parsed(
      envelope([
        change(
          {
            user_preferences: [{ user_id: USER, value: 'signup', signup_id: 's-1', category: 'marketing_messages', timestamp: 1780000300 }],
          },
          'user_preferences',
        ),
      ]),
    );
    expect(events.preferences).toEqual([{ phoneNumberId: '111', userId: USER, value: 'resume', at: 1780000300000 }]);
  });

  it('a system message user_changed_user_id: old → new, from previous_user_id, from_user_id or its body', () => {
    const system = (fields: object, message: object = {}) => ({
      id: 'wamid.S',
      timestamp: '1780000400',
      type: 'system',
      ...message,
      system: { type: 'user_changed_user_id', ...fields },
    });
    const events = parsed(
      envelope([
        change({
          messages: [
            system({ previous_user_id: 'US.1', user_id: 'US.2' }),
            system({ user_id: 'US.4', wa_id: PHONE }, { from_user_id: 'US.3' }),
            system({ body: 'User Ana changed from US.5 to US.6' }),
            system({ body: 'nothing to read' }),
          ],
        }),
      ]),
    );
    expect(events.userIdChanges).toEqual([
      { phoneNumberId: '111', previous: 'US.1', userId: 'US.2', at: 1780000400000 },
      { phoneNumberId: '111', previous: 'US.3', userId: 'US.4', waId: PHONE, at: 1780000400000 },
      { phoneNumberId: '111', previous: 'US.5', userId: 'US.6', at: 1780000400000 },
    ]);
    // Not a user's message: it opens no window.
    expect(events.inbound).toEqual([]);
    expect(events.malformed).toBe(1);
  });

  it('links come from sent, delivered and read statuses and never from failed ones', () => {
    const status = (kind: string) => ({
      id: `w-${kind}`,
      status: kind,
      timestamp: '1780000000',
      recipient_id: PHONE,
      recipient_user_id: USER,
    });
    const events = parsed(envelope([change({ statuses: ['sent', 'delivered', 'read', 'failed'].map(status) })]));
    expect(linksOf(events.statuses, [], [], []).map((l) => l.userId)).toEqual([USER, USER, USER]);
  });
});
