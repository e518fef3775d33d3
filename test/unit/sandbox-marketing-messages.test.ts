import { describe, expect, it } from 'vitest';
import { faultSettingsSchema } from '../../src/sandbox/fault-settings.js';
import { SandboxRuntime, type SendReply } from '../../src/sandbox/sandbox-runtime.js';
import { FIXTURE_TEMPLATES, orderUpdate, templateSend, textParam } from './sandbox-fixtures.js';

const codeOf = (reply: SendReply): number => ('error' in reply.body ? reply.body.error.code : reply.status);
const detailsOf = (reply: SendReply): string | undefined => ('error' in reply.body ? reply.body.error.error_data?.details : undefined);

function runtime(): SandboxRuntime {
  return new SandboxRuntime({
    templates: FIXTURE_TEMPLATES,
    accessToken: 't',
    phoneNumberIds: ['123', '456'],
    messagesPerSecond: 80,
    pairLimit: false,
    onListenerError: () => undefined,
    clock: () => 1_000_000,
    random: () => 0.5,
  });
}

/** The fixtures' MARKETING template, filled. */
function promo(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    ...templateSend('spring_promo', [
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/p.jpg' } }] },
      { type: 'body', parameters: [textParam('Ana'), textParam('20%')] },
    ]),
    ...overrides,
  };
}

describe('sandbox: POST /{phone-number-id}/marketing_messages', () => {
  it('accepts a MARKETING template, with product_policy and message_activity_sharing, and logs the endpoint', () => {
    const rt = runtime();
    const reply = rt.send('123', promo({ product_policy: 'STRICT', message_activity_sharing: false }), 'marketing_messages');
    expect(codeOf(reply)).toBe(200);
    expect(rt.log.all).toHaveLength(1);
    expect(rt.log.all[0]).toMatchObject({ endpoint: 'marketing_messages', body: { product_policy: 'STRICT' } });
    // /messages logs no endpoint, and refuses the fields only the Marketing Messages API takes.
    expect(codeOf(rt.send('123', promo()))).toBe(200);
    expect(rt.log.all[1]?.endpoint).toBeUndefined();
    expect(codeOf(rt.send('123', promo({ product_policy: 'STRICT' })))).toBe(100);
  });

  it('validates the body as /messages does', () => {
    const rt = runtime();
    expect(codeOf(rt.send('123', promo({ messaging_product: 'sms' }), 'marketing_messages'))).toBe(100);
    expect(codeOf(rt.send('123', promo({ product_policy: 'LENIENT' }), 'marketing_messages'))).toBe(100);
    expect(codeOf(rt.send('123', promo({ message_activity_sharing: 'yes' }), 'marketing_messages'))).toBe(100);
    expect(codeOf(rt.send('123', promo({ ttl: 43200 }), 'marketing_messages'))).toBe(100);
  });

  it('refuses a UTILITY template, a template of unknown category and a text with 134100 (marketing only)', () => {
    const rt = runtime();
    const utility = rt.send('123', orderUpdate(), 'marketing_messages');
    expect(codeOf(utility)).toBe(134100);
    expect(utility.status).toBe(400);
    expect(detailsOf(utility)).toMatch(/marketing templates only, not a UTILITY template/);
    const text = orderUpdate({ type: 'text', template: undefined, text: { body: 'Hi' } });
    expect(codeOf(rt.send('123', text, 'marketing_messages'))).toBe(134100);
    expect(rt.log.all).toHaveLength(0);
  });

  it('marketingMessagesRefusal answers a number as not onboarded, on /marketing_messages only', () => {
    const rt = runtime();
    rt.setFaults({ marketingMessagesRefusal: { code: 134102, phoneNumberId: '123' } });
    const refused = rt.send('123', promo(), 'marketing_messages');
    expect(codeOf(refused)).toBe(134102);
    expect(detailsOf(refused)).toMatch(/onboarding/);
    expect(codeOf(rt.send('456', promo(), 'marketing_messages'))).toBe(200);
    expect(codeOf(rt.send('123', promo()))).toBe(200);
  });

  it('takes only the Marketing Messages codes in the fault', () => {
    expect(faultSettingsSchema.safeParse({ marketingMessagesRefusal: { code: 134103 } }).success).toBe(true);
    expect(faultSettingsSchema.safeParse({ marketingMessagesRefusal: { code: 131055 } }).success).toBe(false);
    expect(faultSettingsSchema.safeParse({ marketingMessagesRefusal: { code: 134100, phoneNumberId: 'x' } }).success).toBe(false);
  });
});
