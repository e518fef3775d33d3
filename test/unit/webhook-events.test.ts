import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { optOutMatcher, parseWebhook } from '../../src/webhooks/webhook-events.js';

const example = (name: string) => readFileSync(new URL(`../fixtures/reference/examples/${name}`, import.meta.url));
const stop = optOutMatcher(['STOP', 'UNSUBSCRIBE', 'STOP PROMOTIONS']);

function envelope(changes: object[]): string {
  return JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes }] });
}
const change = (phoneNumberId: string, value: object, field = 'messages') => ({
  field,
  value: { messaging_product: 'whatsapp', metadata: { phone_number_id: phoneNumberId }, ...value },
});

describe('parseWebhook', () => {
  it('reads pricing with the market of its recipient: billable as Meta says, else by type; one spelling; none on failed', () => {
    const status = (id: string, extra: object) => ({
      id,
      status: 'delivered',
      timestamp: '1790000000',
      recipient_id: '919876543210',
      ...extra,
    });
    const parsed = parseWebhook(
      envelope([
        change('1', {
          statuses: [
            status('w1', { pricing: { billable: true, pricing_model: 'PMP', type: 'regular', category: 'marketing' } }),
            status('w2', { pricing: { pricing_model: 'PMP', type: 'free_customer_service', category: 'service' } }),
            status('w3', {
              pricing: { pricing_model: 'PMP', type: 'regular', category: 'utility' },
              recipient_id: undefined,
              recipient_user_id: 'BR.1349',
            }),
            status('w4', {}),
            status('w5', { pricing: { category: 'Not A Category!' } }),
            // Meta's status page spells it with a hyphen; elsewhere with an underscore.
            status('w6', { pricing: { type: 'regular', category: 'authentication-international' } }),
            // A category Meta adds is kept as given, never dropped.
            status('w7', { pricing: { type: 'regular', category: 'group_marketing' } }),
          ],
        }),
      ]),
    );
    expect(parsed.ok && parsed.events.statuses.map((s) => [s.wamid, s.pricing])).toEqual([
      ['w1', { category: 'marketing', billable: true, market: 'India' }],
      ['w2', { category: 'service', billable: false, market: 'India' }],
      ['w3', { category: 'utility', billable: true, market: 'Brazil' }],
      ['w4', undefined],
      ['w5', { category: 'other', billable: false, market: 'India' }],
      ['w6', { category: 'authentication_international', billable: true, market: 'India' }],
      ['w7', { category: 'group_marketing', billable: true, market: 'India' }],
    ]);
    const sent = parseWebhook(example('webhook.status-sent.json'));
    expect(sent.ok && sent.events.statuses[0]?.pricing).toEqual({ category: 'marketing', billable: true, market: 'United Kingdom' });
  });

  it("reads Meta's failed-status example: code and detail, timestamp in ms, routed by its phone number ID", () => {
    const parsed = parseWebhook(example('webhook.status-failed.json'));
    expect(parsed).toEqual({
      ok: true,
      events: {
        statuses: [
          {
            phoneNumberId: '200000000000002',
            wamid: 'wamid.SIMULATED000000000000000002',
            kind: 'failed',
            at: 1735689700000,
            code: '131049',
            detail: 'In order to maintain a healthy ecosystem engagement, the message failed to be delivered.',
            recipientId: '447700900456',
          },
        ],
        inbound: [],
        preferences: [],
        userIdChanges: [],
        templates: [],
        limits: [],
        templateInfo: [],
        accountErrors: [],
        ignored: 0,
        malformed: 0,
      },
    });
  });

  it("reads Meta's button example as a reply to the template it answers; its label is an opt-out keyword", () => {
    const parsed = parseWebhook(example('webhook.inbound-button.json'), stop);
    expect(parsed.ok && parsed.events.inbound).toEqual([
      {
        phoneNumberId: '200000000000002',
        waId: '447700900123',
        wamid: 'wamid.SIMULATEDINBOUND0002',
        at: 1735689900000,
        replyTo: 'wamid.SIMULATED000000000000000001',
        reply: 'STOP_PROMOS:row=000123',
        optOut: true,
      },
    ]);
  });

  it('every entry, change and item of a batch, each change by its own phone number', () => {
    const statuses = (n: number, from: number) =>
      Array.from({ length: n }, (_, i) => ({ id: `w${from + i}`, status: 'delivered', timestamp: '1700000000' }));
    const raw = JSON.stringify({
      object: 'whatsapp_business_account',
      entry: [
        { id: '1', changes: [change('111', { statuses: statuses(600, 0) }), change('222', { statuses: statuses(400, 600) })] },
        { id: '2', changes: [change('111', { statuses: statuses(3, 1000) })] },
      ],
    });
    const parsed = parseWebhook(raw);
    expect(parsed.ok && parsed.events.statuses.length).toBe(1003);
    expect(parsed.ok && parsed.events.statuses.filter((s) => s.phoneNumberId === '222').length).toBe(400);
  });

  it('opt-out keywords by text or button, case and spacing ignored; user_preferences stop and resume', () => {
    const raw = envelope([
      change('111', {
        messages: [
          { from: '4915100000001', id: 'in1', timestamp: '1700000000', type: 'text', text: { body: '  stop   promotions ' } },
          { from: '4915100000002', id: 'in2', timestamp: '1700000000', type: 'text', text: { body: 'stop sending me promotions please' } },
          {
            from: '4915100000003',
            id: 'in3',
            timestamp: '1700000000',
            type: 'button',
            button: { payload: 'UNSUBSCRIBE', text: 'Unsubscribe' },
            context: { id: 'w9' },
          },
        ],
      }),
      change(
        '111',
        { user_preferences: [{ wa_id: '4915100000004', value: 'stop', category: 'marketing_messages', timestamp: 1700000001 }] },
        'user_preferences',
      ),
    ]);
    const parsed = parseWebhook(raw, stop);
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(parsed.events.inbound.map((m) => m.optOut)).toEqual([true, false, true]);
    expect(parsed.events.preferences).toEqual([{ phoneNumberId: '111', waId: '4915100000004', value: 'stop', at: 1700000001000 }]);
  });

  it('user_preferences signup (an In-App Signup opt-in) is consent, as resume is; another value is malformed', () => {
    const raw = envelope([
      change(
        '111',
        {
          user_preferences: [
            { wa_id: '4915100000004', value: 'signup', signup_id: 's-1', category: 'marketing_messages', timestamp: 1700000002 },
            { wa_id: '4915100000005', value: 'pause', category: 'marketing_messages', timestamp: 1700000002 },
          ],
        },
        'user_preferences',
      ),
    ]);
    const parsed = parseWebhook(raw, stop);
    if (!parsed.ok) throw new Error(parsed.problem);
    expect(parsed.events.preferences).toEqual([{ phoneNumberId: '111', waId: '4915100000004', value: 'resume', at: 1700000002000 }]);
    expect(parsed.events.malformed).toBe(1);
  });

  it('counts what it cannot use instead of refusing the POST: malformed statuses, other kinds', () => {
    const raw = envelope([
      change('111', {
        statuses: [
          { id: 'w1', status: 'delivered' },
          { id: 'w2', status: 'played', timestamp: '1' },
          { status: 'read', timestamp: '1' },
        ],
      }),
      change('111', { event: 'FLAGGED', current_limit: 'TIER_1K' }, 'phone_number_quality_update'),
    ]);
    expect(parseWebhook(raw)).toMatchObject({ ok: true, events: { statuses: [], malformed: 2, ignored: 2 } });
    expect(parseWebhook('not json')).toMatchObject({ ok: false });
    expect(parseWebhook('{"object":"page"}')).toMatchObject({ ok: false });
  });

  // Meta's `message_template_status_update` (reference cloud-api.md §3.7): for the WABA (entry.id), no phone number.
  const templateChange = (value: object) => ({ field: 'message_template_status_update', value });

  it("reads a template's status change: event, name, language, and Meta's reason (or other_info's title)", () => {
    const raw = envelope([
      templateChange({
        event: 'PAUSED',
        message_template_id: 1234567890,
        message_template_name: 'order_update',
        message_template_language: 'en_US',
        reason: 'LOW_QUALITY',
      }),
      templateChange({
        event: 'REINSTATED',
        message_template_id: 1234567890,
        message_template_name: 'order_update',
        message_template_language: 'en_US',
        reason: 'NONE',
      }),
      templateChange({
        event: 'DISABLED',
        message_template_id: 42,
        message_template_name: 'promo',
        message_template_language: 'de',
        reason: null,
        other_info: { title: 'TEMPLATE_DISABLED', description: 'Quality stayed low.' },
      }),
    ]);
    const parsed = parseWebhook(raw);
    expect(parsed).toMatchObject({ ok: true, events: { ignored: 0, malformed: 0 } });
    expect(parsed.ok && parsed.events.templates).toEqual([
      { event: 'PAUSED', name: 'order_update', language: 'en_US', detail: 'LOW_QUALITY' },
      { event: 'REINSTATED', name: 'order_update', language: 'en_US', detail: '' },
      { event: 'DISABLED', name: 'promo', language: 'de', detail: 'TEMPLATE_DISABLED' },
    ]);
  });

  it('counts a template status change without its name, language or event as malformed', () => {
    const raw = envelope([
      templateChange({ event: 'APPROVED' }),
      templateChange({ event: 'PAUSED', message_template_name: 'order_update' }),
      templateChange({ message_template_name: 'order_update', message_template_language: 'en_US' }),
    ]);
    expect(parseWebhook(raw)).toMatchObject({ ok: true, events: { templates: [], malformed: 3, ignored: 0 } });
  });
});
