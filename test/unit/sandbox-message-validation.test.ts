import { describe, expect, it } from 'vitest';
import { validateMessage, type ValidationContext } from '../../src/sandbox/message-validation.js';
import { expectGraphError, expectMissingField, fixtureStore, orderUpdate } from './sandbox-fixtures.js';

/**
 * The envelope and `text` rules of a send (reference §1.2–1.3), without a server. Whether a
 * text is inside the service window is not validation: Meta accepts it and reports 131047
 * by webhook (sandbox-async-failures.test.ts).
 */
function context(): ValidationContext {
  return { templates: fixtureStore() };
}

const validate = (body: unknown, ctx = context()) => validateMessage(body, ctx);

function without(key: string): Record<string, unknown> {
  const body = orderUpdate();
  delete body[key];
  return body;
}

const textSend = (text: unknown, to = '+447700900123') => ({
  messaging_product: 'whatsapp',
  to,
  type: 'text',
  text,
});

describe('sandbox envelope validation', () => {
  it('accepts a valid template send and reports the recipient digits and the template category', () => {
    const result = validate(orderUpdate());
    expect(result).toEqual({ ok: true, message: { to: '+44 7700 900123', waId: '447700900123', type: 'template', category: 'UTILITY' } });
  });

  it.each([null, [], 'text', 42])('refuses a body that is not a JSON object (%j) with 100', (body) => {
    expectGraphError(validate(body), 100, 400, /JSON object/);
  });

  it.each(['messaging_product', 'to', 'type'])(
    'refuses a send without %s with 100 "The parameter … is required." and no error_data',
    (key) => {
      expectMissingField(validate(without(key)), key);
    },
  );

  it('refuses a send without the object its type names with 100 (a missing field, not 131008)', () => {
    expectMissingField(validate(without('template')), 'template');
    expectMissingField(validate({ messaging_product: 'whatsapp', to: '+447700900123', type: 'text' }), 'text');
  });

  it('refuses messaging_product other than whatsapp with 100', () => {
    expectGraphError(validate(orderUpdate({ messaging_product: 'sms' })), 100, 400, /messaging_product/);
  });

  it('accepts a missing recipient_type but refuses one other than individual', () => {
    expect(validate(without('recipient_type')).ok).toBe(true);
    expectGraphError(validate(orderUpdate({ recipient_type: 'group' })), 100, 400, /recipient_type/);
  });

  it.each(['+1 (415) 555-0100', '4155550100', '+44-7700-900123'])('accepts the phone number %s', (to) => {
    expect(validate(orderUpdate({ to })).ok).toBe(true);
  });

  it.each(['12345', '+1234567890123456', 'abc4155550100', '44+7700900123', ''])('refuses the phone number %j with 100', (to) => {
    expectGraphError(validate(orderUpdate({ to })), 100, 400, /to/);
  });

  it('refuses a misspelled top-level field with 100 naming it', () => {
    expectGraphError(validate(orderUpdate({ recipent_type: 'individual' })), 100, 400, /recipent_type/);
  });

  it.each(['sticker', 'interactive', 'reaction'])('refuses the unsimulated Meta type %s with 131051', (type) => {
    expectGraphError(validate(orderUpdate({ type })), 131051, 400, new RegExp(type));
  });

  it('refuses an unknown type with 100', () => {
    expectGraphError(validate(orderUpdate({ type: 'fax' })), 100, 400, /fax/);
  });

  it('refuses a text object on a template send with 100', () => {
    expectGraphError(validate(orderUpdate({ text: { body: 'hi' } })), 100, 400, /text/);
  });

  it('limits biz_opaque_callback_data to a string of 512 characters', () => {
    expect(validate(orderUpdate({ biz_opaque_callback_data: 'x'.repeat(512) })).ok).toBe(true);
    expectGraphError(validate(orderUpdate({ biz_opaque_callback_data: 'x'.repeat(513) })), 100, 400, /512/);
    expectGraphError(validate(orderUpdate({ biz_opaque_callback_data: 7 })), 100, 400, /biz_opaque_callback_data/);
  });

  it('accepts context.message_id and refuses other context keys', () => {
    expect(validate(orderUpdate({ context: { message_id: 'wamid.X' } })).ok).toBe(true);
    expectGraphError(validate(orderUpdate({ context: { id: 'wamid.X' } })), 100, 400, /"id"/);
    expectMissingField(validate(orderUpdate({ context: {} })), 'context.message_id');
  });
});

describe('sandbox text validation', () => {
  const open = context();

  it('accepts a valid text whatever the service window (Meta reports a closed one by webhook)', () => {
    expect(validate(textSend({ body: 'Hi Ana', preview_url: true }), open)).toEqual({
      ok: true,
      message: { to: '+447700900123', waId: '447700900123', type: 'text' },
    });
  });

  it('refuses a missing body with 100 (missing field) and a bad one with 100 and details', () => {
    expectMissingField(validate(textSend({}), open), 'text.body');
    expectGraphError(validate(textSend({ body: '' }), open), 100, 400, /text.body/);
    expectGraphError(validate(textSend({ body: 5 }), open), 100, 400, /text.body/);
  });

  it('allows 4096 characters and refuses 4097 with 100', () => {
    expect(validate(textSend({ body: 'x'.repeat(4096) }), open).ok).toBe(true);
    expectGraphError(validate(textSend({ body: 'x'.repeat(4097) }), open), 100, 400, /4096/);
  });

  it('refuses unknown text keys and a non-boolean preview_url with 100', () => {
    expectGraphError(validate(textSend({ body: 'hi', bold: true }), open), 100, 400, /bold/);
    expectGraphError(validate(textSend({ body: 'hi', preview_url: 'yes' }), open), 100, 400, /preview_url/);
  });

  it('refuses text that is not an object with 100', () => {
    expectGraphError(validate(textSend('hello'), open), 100, 400, /text/);
  });
});
