import { describe, expect, it } from 'vitest';
import { validateMessage } from '../../src/sandbox/message-validation.js';
import { NAME_MISSING_DETAILS, WHITESPACE_DETAILS } from '../../src/sandbox/parameter-validation.js';
import { expectGraphError, expectMissingField, fixtureStore, orderUpdate, templateSend, textParam } from './sandbox-fixtures.js';

/** The `template` rules of a send (reference §1.4, checklist §7 items 2–5), without a server. */
const store = fixtureStore();
const validate = (body: unknown) => validateMessage(body, { templates: store });
const bodyOf = (...parameters: unknown[]) => ({ type: 'body', parameters });
const image = (media: Record<string, unknown> = { link: 'https://cdn.example.com/a.jpg' }) => ({
  type: 'image',
  image: media,
});
const promo = (...components: unknown[]) => templateSend('spring_promo', components);
const promoBody = bodyOf(textParam('Ana'), textParam('25%'));
const named = (...parameters: unknown[]) => templateSend('appointment_reminder_named', [bodyOf(...parameters)]);

describe('sandbox template lookup', () => {
  it('requires template.name and template.language.code (100 "The parameter … is required.", not 131008)', () => {
    expectMissingField(validate(orderUpdate({ template: { language: { code: 'en_US' } } })), 'template.name');
    expectMissingField(validate(orderUpdate({ template: { name: 'order_update' } })), 'template.language');
    expectMissingField(validate(orderUpdate({ template: { name: 'order_update', language: {} } })), 'template.language.code');
  });

  it('refuses unknown keys in template and language with 100', () => {
    const base = { name: 'order_update', language: { code: 'en_US' } };
    expectGraphError(validate(orderUpdate({ template: { ...base, namespace: 'x' } })), 100, 400, /namespace/);
    expectGraphError(validate(orderUpdate({ template: { ...base, language: { code: 'en_US', locale: 'x' } } })), 100, 400, /locale/);
    expectGraphError(validate(orderUpdate({ template: { ...base, language: { code: 'en_US', policy: 'fallback' } } })), 100, 400, /policy/);
  });

  it('answers 404 / 132001 for a name that does not exist in that language', () => {
    expectGraphError(
      validate(templateSend('order_update', [], 'en_GB')),
      132001,
      404,
      'template name (order_update) does not exist in en_GB',
    );
    expectGraphError(validate(templateSend('nope', [])), 132001, 404, 'template name (nope) does not exist in en_US');
  });

  it('answers 400 / 132015 for a PAUSED template and 400 / 132016 for a DISABLED one', () => {
    expectGraphError(validate(templateSend('winter_clearance', [bodyOf(textParam('Ana'))])), 132015, 400);
    expectGraphError(validate(templateSend('legacy_welcome', [bodyOf(textParam('Ana'))])), 132016, 400);
  });

  it('answers 404 / 132001 for any other status that is not APPROVED', () => {
    expectGraphError(validate(templateSend('new_launch', [bodyOf(textParam('Ana'))])), 132001, 404, /PENDING/);
  });
});

describe('sandbox template components', () => {
  it('accepts a template without variables sent without components', () => {
    expect(validate(templateSend('static_body', undefined)).ok).toBe(true);
    expect(validate(templateSend('static_body', [])).ok).toBe(true);
  });

  it('refuses unknown component types and keys with 100', () => {
    expectGraphError(validate(templateSend('order_update', [{ type: 'footer', parameters: [] }])), 100, 400, /footer/);
    expectGraphError(
      validate(templateSend('order_update', [{ ...bodyOf(textParam('a'), textParam('b')), sub_type: 'x' }])),
      100,
      400,
      /sub_type/,
    );
    expectGraphError(validate(templateSend('order_update', [{ type: 'BODY', parameters: [] }])), 100, 400, /BODY/);
  });

  it('refuses a component without parameters, or without its type, as a missing field (100)', () => {
    expectMissingField(validate(templateSend('order_update', [{ type: 'body' }])), 'template.components[0].parameters');
    expectMissingField(validate(templateSend('order_update', [{ parameters: [] }])), 'template.components[0].type');
  });

  it.each([
    ['too few', [bodyOf(textParam('Ana'))], 'body: expected 2 parameters, got 1'],
    ['too many', [bodyOf(textParam('a'), textParam('b'), textParam('c'))], 'body: expected 2 parameters, got 3'],
    ['none', [], 'body: expected 2 parameters, got 0'],
  ])('answers 132000 when body parameters are %s', (_case, components, details) => {
    expectGraphError(validate(templateSend('order_update', components)), 132000, 400, details);
  });

  it('answers 132000 for a component the template does not have', () => {
    const header = { type: 'header', parameters: [textParam('x')] };
    expectGraphError(validate(templateSend('order_update', [header, bodyOf(textParam('a'), textParam('b'))])), 132000, 400, /header/);
    expectGraphError(validate(templateSend('static_body', [bodyOf(textParam('a'))])), 132000, 400, /body/);
  });

  it('accepts currency and date_time body parameters and checks their fields', () => {
    const currency = { type: 'currency', currency: { fallback_value: '£25.00', code: 'GBP', amount_1000: 25000 } };
    const dateTime = { type: 'date_time', date_time: { fallback_value: '31 May 2025' } };
    const send = (c: unknown) =>
      templateSend(
        'text_header_url',
        [
          { type: 'header', parameters: [textParam('Ana')] },
          bodyOf(textParam('SPRING25'), c, dateTime),
          { type: 'button', sub_type: 'url', index: '0', parameters: [textParam('SPRING25')] },
        ],
        'en_GB',
      );
    expect(validate(send(currency)).ok).toBe(true);
    expectMissingField(
      validate(send({ type: 'currency', currency: { code: 'GBP', amount_1000: 1 } })),
      'body.parameters[1].currency.fallback_value',
    );
    expectMissingField(
      validate(send({ type: 'currency', currency: { code: 'GBP', fallback_value: '£1' } })),
      'body.parameters[1].currency.amount_1000',
    );
    expectGraphError(
      validate(send({ type: 'currency', currency: { ...currency.currency, fallback_value: '' } })),
      131008,
      400,
      /fallback_value/,
    );
    expectGraphError(validate(send({ ...currency, currency: { ...currency.currency, code: 'pounds' } })), 100, 400, /code/);
    expectGraphError(validate(send({ ...currency, currency: { ...currency.currency, amount_1000: 2.5 } })), 100, 400);
  });

  it('checks URL buttons: required when the URL has a variable, one text parameter, right index', () => {
    const header = { type: 'header', parameters: [textParam('Ana')] };
    const body = bodyOf(textParam('a'), textParam('b'), textParam('c'));
    const send = (...buttons: unknown[]) => templateSend('text_header_url', [header, body, ...buttons], 'en_GB');
    const url = (index: string, ...parameters: unknown[]) => ({ type: 'button', sub_type: 'url', index, parameters });
    expect(validate(send(url('0', textParam('X1')))).ok).toBe(true);
    // Omitting the URL-button component is a missing value, in Meta's words (reference §7 item 3).
    expectGraphError(validate(send()), 131008, 400, 'buttons: Button at index 0 of type Url requires a parameter');
    expectGraphError(validate(send(url('0'))), 132000, 400, /expected 1 parameters, got 0/);
    // A sub_type contradicting the template's button is 132018, also in Meta's words.
    expectGraphError(validate(send(url('1', textParam('X1')))), 132018, 400, 'buttons: Button at index 1 must be of type QuickReply');
    expectGraphError(
      validate(send({ type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'P' }] })),
      132018,
      400,
      'buttons: Button at index 0 must be of type Url',
    );
    expectGraphError(validate(send(url('0', textParam('X1')), url('5', textParam('X')))), 132000, 400, /no button at index 5/);
    expectGraphError(validate(send(url('00', textParam('X1')))), 100, 400, /index/);
    // Meta's send examples write the index as an integer, its OpenAPI as a string: both are taken.
    expect(validate(send({ ...url('0', textParam('X1')), index: 0 })).ok).toBe(true);
    expectGraphError(validate(send({ ...url('0', textParam('X1')), index: 0.5 })), 100, 400, /index/);
  });

  it("takes a NAMED template's URL-button value with or without parameter_name (the reference says: accept both)", () => {
    const body = bodyOf(textParam('Ana', 'first_name'));
    const url = (...parameters: unknown[]) => ({ type: 'button', sub_type: 'url', index: '0', parameters });
    const send = (...buttons: unknown[]) => templateSend('parcel_named_url', [body, ...buttons]);
    expect(validate(send(url(textParam('A-1', 'tracking_code')))).ok).toBe(true);
    expect(validate(send(url(textParam('A-1')))).ok).toBe(true);
    expectGraphError(validate(send(url(textParam('A-1', 'order_id')))), 132000, 400, /unknown parameter_name order_id/);
    expectGraphError(validate(send(url(textParam('A-1'), textParam('A-2')))), 132000, 400, /expected 1 parameters, got 2/);
    expectGraphError(validate(send(url(textParam('A-1', 'tracking_code'), textParam('A-2')))), 132000, 400);
    expectGraphError(validate(send()), 131008, 400, 'buttons: Button at index 0 of type Url requires a parameter');
    // The body of a NAMED template still needs its names.
    expectGraphError(
      validate(templateSend('parcel_named_url', [bodyOf(textParam('Ana')), url(textParam('A-1'))])),
      100,
      400,
      NAME_MISSING_DETAILS,
    );
  });

  it('accepts an optional quick-reply payload; a sub_type of another kind of button is 132018, an unknown one 100', () => {
    const quickReply = { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'STOP' }] };
    expect(validate(promo({ type: 'header', parameters: [image()] }, promoBody, quickReply)).ok).toBe(true);
    expect(validate(promo({ type: 'header', parameters: [image()] }, promoBody)).ok).toBe(true);
    expectGraphError(
      validate(promo({ type: 'header', parameters: [image()] }, promoBody, { ...quickReply, sub_type: 'copy_code' })),
      132018,
      400,
      'buttons: Button at index 0 must be of type QuickReply',
    );
    expectGraphError(
      validate(promo({ type: 'header', parameters: [image()] }, promoBody, { ...quickReply, sub_type: 'reply' })),
      100,
      400,
      /sub_type has an invalid value: reply/,
    );
  });
});

describe('sandbox media headers', () => {
  it('accepts an IMAGE header with one image link or id', () => {
    expect(validate(promo({ type: 'header', parameters: [image()] }, promoBody)).ok).toBe(true);
    expect(validate(promo({ type: 'header', parameters: [image({ id: '1234567890' })] }, promoBody)).ok).toBe(true);
  });

  it("answers 132012 for a text parameter in an IMAGE header, or no header at all, in Meta's words", () => {
    expectGraphError(
      validate(promo({ type: 'header', parameters: [textParam('x')] }, promoBody)),
      132012,
      400,
      'header: Format mismatch, expected IMAGE, received TEXT',
    );
    expectGraphError(validate(promo(promoBody)), 132012, 400, 'header: Format mismatch, expected IMAGE, received UNKNOWN');
    expectGraphError(validate(promo({ type: 'header', parameters: [] }, promoBody)), 132012, 400);
    expectGraphError(
      validate(promo({ type: 'header', parameters: [{ type: 'video', video: { link: 'https://x.example/v.mp4' } }] }, promoBody)),
      132012,
      400,
    );
  });

  it('answers 132000 for two media parameters', () => {
    expectGraphError(validate(promo({ type: 'header', parameters: [image(), image()] }, promoBody)), 132000, 400);
  });

  it('needs exactly one of link (http or https) or id', () => {
    const send = (media: Record<string, unknown>) => promo({ type: 'header', parameters: [image(media)] }, promoBody);
    expectMissingField(validate(send({})), 'header.parameters[0].image.link or header.parameters[0].image.id');
    expectGraphError(validate(send({ link: 'https://x.example/a.jpg', id: '1' })), 100, 400, /not both/);
    expectGraphError(validate(send({ link: 'ftp://x.example/a.jpg' })), 100, 400, /http or https/);
    expectGraphError(validate(send({ link: 'x.example/a.jpg' })), 100, 400, /http or https/);
    expectGraphError(validate(send({ link: 'https://x.example/a.jpg', caption: 'hi' })), 100, 400, /caption/);
  });

  it('accepts an http media link as Meta does (MediaObject.link is HTTP or HTTPS)', () => {
    expect(validate(promo({ type: 'header', parameters: [image({ link: 'http://x.example/a.jpg' })] }, promoBody)).ok).toBe(true);
  });

  it('accepts a document with a filename and a location with coordinates', () => {
    const doc = { type: 'document', document: { link: 'https://x.example/inv.pdf', filename: 'invoice.pdf' } };
    expect(validate(templateSend('document_header', [{ type: 'header', parameters: [doc] }])).ok).toBe(true);
    const location = { latitude: '37.48', longitude: -122.14, name: 'Shop', address: '1 Main St' };
    const sendLocation = (l: unknown) =>
      templateSend('location_header', [{ type: 'header', parameters: [{ type: 'location', location: l }] }]);
    expect(validate(sendLocation(location)).ok).toBe(true);
    expectGraphError(validate(sendLocation({ ...location, latitude: 91 })), 100, 400, /latitude/);
  });
});

describe('sandbox text parameters', () => {
  it.each(['a\nb', 'a\rb', 'a\tb', 'a     b'])("refuses %j with 100 and Meta's exact details", (text) => {
    expectGraphError(validate(templateSend('order_update', [bodyOf(textParam(text), textParam('x'))])), 100, 400, WHITESPACE_DETAILS);
  });

  it('accepts four consecutive spaces', () => {
    expect(validate(templateSend('order_update', [bodyOf(textParam('a    b'), textParam('x'))])).ok).toBe(true);
  });

  it("refuses an empty text parameter with 131008 (a missing value) in Meta's words, naming it", () => {
    expectGraphError(
      validate(templateSend('order_update', [bodyOf(textParam(''), textParam('x'))])),
      131008,
      400,
      'Parameter of type text is missing text value (body.parameters[0].text)',
    );
  });

  it('refuses a text parameter without its text key as a missing field (100), not 131008', () => {
    expectMissingField(validate(templateSend('order_update', [bodyOf({ type: 'text' }, textParam('x'))])), 'body.parameters[0].text');
  });

  it('refuses a parameter without a known type with 100, and one without a type as a missing field', () => {
    expectGraphError(validate(templateSend('order_update', [bodyOf({ type: 'txt', text: 'a' }, textParam('x'))])), 100, 400, /txt/);
    expectMissingField(validate(templateSend('order_update', [bodyOf({ text: 'a' }, textParam('x'))])), 'body.parameters[0].type');
  });

  it('refuses parameter_name on a POSITIONAL template with 100', () => {
    expectGraphError(validate(templateSend('order_update', [bodyOf(textParam('a', 'first'), textParam('x'))])), 100, 400, /NAMED/);
  });

  it('answers 132005 when the rendered body exceeds 1024 characters', () => {
    const long = 'x'.repeat(1000);
    expect(validate(templateSend('order_update', [bodyOf(textParam('Ana'), textParam('x'.repeat(900)))])).ok).toBe(true);
    expectGraphError(validate(templateSend('order_update', [bodyOf(textParam('Ana'), textParam(long))])), 132005, 400, /1024/);
  });
});

describe('sandbox NAMED templates', () => {
  const first = textParam('Ana', 'first_name');
  const time = textParam('12 June', 'appointment_time');

  it('accepts the named parameters in any order', () => {
    expect(validate(named(time, first)).ok).toBe(true);
  });

  it.each([[textParam('Ana')], [textParam('Ana', '')]])(
    'answers 100 "%j: Parameter name is missing or empty" for a parameter without its name',
    (parameter) => {
      expectGraphError(validate(named(parameter, time)), 100, 400, NAME_MISSING_DETAILS);
    },
  );

  it.each([
    ['an unknown parameter_name', [first, textParam('x', 'appointment_date')], /unknown parameter_name appointment_date/],
    ['a duplicated parameter_name', [first, first], /given twice/],
    ['a missing variable', [first], /missing appointment_time/],
  ])('answers 132000 for %s', (_case, parameters, details) => {
    expectGraphError(validate(named(...parameters)), 132000, 400, details);
  });
});
