import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { messageBody } from '../../src/cloud-api/message-body.js';
import type { OutboundMessage } from '../../src/cloud-api/outbound-message.js';
import { schemaErrors } from '../support/openapi-schemas.js';
import { Contract, requestContract } from '../support/request-contract.js';

/**
 * Contract of the send request (reference §1.2–1.4) and its answer (§1.5) against Meta's
 * OpenAPI spec, patched per §9. `Message`, the schema the path declares, is far too loose on
 * its own, so every body is WALKED against the schema meant for each part, with the rules of
 * the reference where even that schema cannot see a real mistake (requestContract, in
 * test/support/request-contract.ts: the suite-wide capture check walks every send the product
 * made with it). The "spec gap" tests pin down which mistakes `Message` alone lets through.
 */

type Json = Record<string, unknown>;

const reference = (path: string): URL => new URL(`../fixtures/reference/${path}`, import.meta.url);
const readJson = (path: string): unknown => JSON.parse(readFileSync(reference(path), 'utf8')) as unknown;

const isObject = (value: unknown): value is Json => typeof value === 'object' && value !== null && !Array.isArray(value);
const list = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);

// ---- response --------------------------------------------------------------------------

function responseContract(response: unknown): Contract {
  const contract = new Contract();
  contract.schema('MessageResponsePayload', response, '');
  if (!isObject(response)) return contract;
  // MessageResponsePayload requires nothing and lets messaging_product be any string; §1.5
  // says what a 200 carries: the echo of `to`, the wa_id, and the wamid every status webhook uses.
  contract.rule(response.messaging_product === 'whatsapp', '/messaging_product', 'is not "whatsapp"', '§1.5');
  const contacts = list(response.contacts);
  contract.rule(contacts.length > 0, '/contacts', 'is missing or empty', '§1.5');
  contacts.forEach((c, i) => {
    contract.rule(
      isObject(c) && typeof c.input === 'string' && typeof c.wa_id === 'string',
      `/contacts/${i}`,
      'lacks input or wa_id',
      '§1.5',
    );
  });
  const messages = list(response.messages);
  contract.rule(messages.length > 0, '/messages', 'is missing or empty', '§1.5');
  messages.forEach((m, i) => {
    contract.rule(isObject(m) && typeof m.id === 'string' && m.id.startsWith('wamid.'), `/messages/${i}/id`, 'is not a wamid', '§1.5');
  });
  return contract;
}

// ---- the messages our client sends -------------------------------------------------------

const text: OutboundMessage = { kind: 'text', to: '+447700900123', body: 'Hi Ana, your parcel ships today.' };

const positional: OutboundMessage = {
  kind: 'template',
  to: '+14155550123',
  name: 'spring_sale_v2',
  language: 'en_GB',
  callbackData: 'spring24/123',
  header: { type: 'text', text: 'Ana' },
  body: [{ text: 'SPRING25' }, { text: '£25.00' }, { text: '31 May 2025' }],
  urlButtons: [{ index: 0, text: 'SPRING25' }],
};

const named: OutboundMessage = {
  kind: 'template',
  to: '+5511987654321',
  name: 'order_ready_named',
  language: 'pt_BR',
  header: { type: 'image', link: 'https://cdn.example.com/banner.jpg' },
  body: [
    { name: 'first_name', text: 'João' },
    { name: 'order_id', text: 'A-99812' },
  ],
};

const namedButton: OutboundMessage = {
  kind: 'template',
  to: '+4915112345678',
  name: 'track_named',
  language: 'de',
  header: { type: 'text', name: 'shop', text: 'Acme' },
  body: [{ name: 'first_name', text: 'Jonas' }],
  urlButtons: [{ index: 1, name: 'tracking_code', text: 'ZX-42' }],
};

const cases: [string, OutboundMessage][] = [
  ['text', text],
  ['text with preview_url', { kind: 'text', to: '+14155550123', body: 'See https://example.com', previewUrl: true }],
  ['text of exactly 4096 characters', { kind: 'text', to: '+14155550123', body: 'x'.repeat(4096) }],
  [
    'template without any variables (no components)',
    { kind: 'template', to: '+14155550123', name: 'hello_world', language: 'en_US', body: [] },
  ],
  ['positional template: text header, body, URL button', positional],
  ['named template: image header, body with parameter_name', named],
  ['named template: named text header, body and named URL button', namedButton],
  [
    'template with video header',
    {
      kind: 'template',
      to: '+14155550123',
      name: 'promo_video',
      language: 'en_US',
      header: { type: 'video', link: 'https://cdn.example.com/a.mp4' },
      body: [{ text: 'Ana' }],
    },
  ],
  [
    'template with document header',
    {
      kind: 'template',
      to: '+14155550123',
      name: 'invoice',
      language: 'en_US',
      header: { type: 'document', link: 'https://cdn.example.com/a.pdf' },
      body: [],
    },
  ],
];

describe('request bodies: each part against its own schema (patched OpenAPI v23.0)', () => {
  it.each(cases)('%s', (_label, message) => {
    expect(requestContract(messageBody(message)).errors).toEqual([]);
  });

  it.each(['send-text.request.json', 'send-template-positional.request.json', 'send-template-named.request.json'])(
    'reference example %s',
    (name) => {
      expect(requestContract(readJson(`examples/${name}`)).errors).toEqual([]);
    },
  );

  it('walks every part of a template body, each against the schema for its type', () => {
    expect(requestContract(messageBody(positional)).checked).toEqual([
      '/ Message',
      '/ TemplateMessage',
      '/messaging_product MessageRequest/properties/messaging_product',
      '/recipient_type MessageRequest/properties/recipient_type',
      '/to MessageRequest/properties/to',
      '/type MessageRequest/properties/type',
      '/template TemplateObject',
      '/template/language LanguageObject',
      '/template/components/0 HeaderComponent',
      '/template/components/0/parameters/0 TextParameter',
      '/template/components/1 BodyComponent',
      '/template/components/1/parameters/0 TextParameter',
      '/template/components/1/parameters/1 TextParameter',
      '/template/components/1/parameters/2 TextParameter',
      '/template/components/2 ButtonComponent',
      '/template/components/2/parameters/0 ButtonTextParameter',
    ]);
    expect(requestContract(messageBody(named)).checked).toContain('/template/components/0/parameters/0 ImageParameter');
    expect(requestContract(readJson('examples/send-template-positional.request.json')).checked).toEqual(
      expect.arrayContaining([
        '/template/components/1/parameters/1 CurrencyParameter',
        '/template/components/1/parameters/2 DateTimeParameter',
        '/template/components/3/parameters/0 ButtonPayloadParameter',
      ]),
    );
  });

  it('a Marketing Messages API send: the same template, no biz_opaque_callback_data (its schema allows none)', () => {
    const viaMarketingApi: OutboundMessage = { ...positional, endpoint: 'marketing-messages' };
    const body = messageBody(viaMarketingApi);
    expect(body).not.toHaveProperty('biz_opaque_callback_data');
    expect(schemaErrors('MarketingMessageRequestPayload', body)).toEqual([]);
    expect(requestContract(body).errors).toEqual([]);
    // The /messages send of the same row keeps it, and the MM schema would refuse it.
    expect(schemaErrors('MarketingMessageRequestPayload', messageBody(positional))).toEqual([
      ' must NOT have additional properties [MarketingMessageRequestPayload]',
    ]);
  });

  it('walks the text object against both text schemas', () => {
    expect(requestContract(messageBody(text)).checked).toEqual([
      '/ Message',
      '/ TextMessage',
      '/messaging_product MessageRequest/properties/messaging_product',
      '/recipient_type MessageRequest/properties/recipient_type',
      '/to MessageRequest/properties/to',
      '/type MessageRequest/properties/type',
      '/text TextMessage_1',
      '/text TextMessage/allOf/1/properties/text',
    ]);
  });
});

// ---- mistakes that must be refused ---------------------------------------------------------

/** A copy of `body` changed by `change`, so each mistake starts from a valid body. */
function edited(body: Json, change: (copy: Json) => void): Json {
  const copy = structuredClone(body);
  change(copy);
  return copy;
}

/** The object at `path` inside `value` (throws if there is none: the mistake would be a no-op). */
function part(value: unknown, ...path: (string | number)[]): Json {
  const found = path.reduce<unknown>((node, key) => (isObject(node) || Array.isArray(node) ? (node as Json)[key] : undefined), value);
  if (!isObject(found)) throw new Error(`nothing at ${path.join('/')}`);
  return found;
}

const textBody = messageBody(text);
// components: 0 header (text), 1 body (3 × text), 2 URL button index "0"
const positionalBody = messageBody(positional);
// components: 0 header (image), 1 body (2 × named text)
const namedBody = messageBody(named);

interface Mistake {
  label: string;
  body: Json;
  /** Part of the error expected, with the schema or reference section that reports it. */
  refusedBy: string;
  /** Why the path's declared schema `Message` lets it through; absent when `Message` refuses it too. */
  gap?: string;
}

const NO_PARAMETER_CHECK = 'TemplateComponent.parameters has no items and the discriminators are not applied';

const mistakes: Mistake[] = [
  {
    label: 'messaging_product "foo"',
    body: { ...textBody, messaging_product: 'foo' },
    refusedBy: '/messaging_product must be equal to one of the allowed values [MessageRequest/properties/messaging_product]',
    gap: 'BaseMessageProperties.messaging_product is any string; only MessageRequest has the enum',
  },
  {
    label: 'missing to',
    body: edited(textBody, (b) => delete b.to),
    refusedBy: "must have required property 'to' [TextMessage]",
  },
  {
    label: 'recipient_type outside the enum',
    body: { ...textBody, recipient_type: 'user' },
    refusedBy: '/recipient_type must be equal to one of the allowed values [TextMessage]',
  },
  {
    label: 'to without the leading +',
    body: { ...textBody, to: '447700900123' },
    refusedBy: '/to is not E.164 with a leading + [reference §1.2]',
    gap: '`to` is any string',
  },
  {
    label: 'unknown top-level field',
    body: { ...positionalBody, callback_data: 'spring24/123' },
    refusedBy: '/ has unknown top-level field callback_data [reference §1.2]',
    gap: 'no message schema sets additionalProperties: false at the top level',
  },
  {
    label: 'biz_opaque_callback_data over 512 characters',
    body: { ...positionalBody, biz_opaque_callback_data: 'x'.repeat(513) },
    refusedBy: '/biz_opaque_callback_data must NOT have more than 512 characters [TemplateMessage]',
  },
  {
    label: 'type "template" carrying a text object',
    body: { ...textBody, type: 'template' },
    refusedBy: "must have required property 'template' [TemplateMessage]",
  },
  {
    label: 'text body over 4096 characters',
    body: edited(textBody, (b) => (part(b, 'text').body = 'x'.repeat(4097))),
    refusedBy: '/text/body must NOT have more than 4096 characters [TextMessage_1]',
    gap: "TextMessage's text object has no maxLength; TextMessage_1 (MessageRequest's) has it",
  },
  {
    label: 'text object without body',
    body: edited(textBody, (b) => delete part(b, 'text').body),
    refusedBy: "/text must have required property 'body' [TextMessage_1]",
    gap: "TextMessage's text object does not require body",
  },
  {
    label: 'preview_url as a string',
    body: edited(textBody, (b) => (part(b, 'text').preview_url = 'true')),
    refusedBy: '/text/preview_url must be boolean [TextMessage/allOf/1/properties/text]',
  },
  {
    label: 'camelCase previewUrl inside text',
    body: edited(textBody, (b) => (part(b, 'text').previewUrl = true)),
    refusedBy: '/text must NOT have additional properties [TextMessage/allOf/1/properties/text]',
  },
  {
    label: 'template without name',
    body: edited(positionalBody, (b) => delete part(b, 'template').name),
    refusedBy: "/template must have required property 'name' [TemplateObject]",
  },
  {
    label: 'template without language',
    body: edited(namedBody, (b) => delete part(b, 'template').language),
    refusedBy: "/template must have required property 'language' [TemplateObject]",
  },
  {
    label: 'language without code',
    body: edited(positionalBody, (b) => (part(b, 'template').language = { policy: 'deterministic' })),
    refusedBy: "/template/language must have required property 'code' [LanguageObject]",
  },
  {
    label: 'footer component with parameters',
    body: edited(positionalBody, (b) =>
      (part(b, 'template').components as unknown[]).push({ type: 'footer', parameters: [{ type: 'text', text: 'x' }] }),
    ),
    refusedBy: '/template/components/3/type must be equal to one of the allowed values [TemplateComponent]',
  },
  {
    label: 'text parameter without text',
    body: edited(positionalBody, (b) => delete part(b, 'template', 'components', 1, 'parameters', 0).text),
    refusedBy: "/template/components/1/parameters/0 must have required property 'text' [TextParameter]",
    gap: NO_PARAMETER_CHECK,
  },
  {
    label: 'image parameter without link or id',
    body: edited(namedBody, (b) => (part(b, 'template', 'components', 0, 'parameters', 0).image = {})),
    refusedBy: '/template/components/0/parameters/0/image must match exactly one schema in oneOf [ImageParameter]',
    gap: NO_PARAMETER_CHECK,
  },
  {
    label: 'image parameter with both link and id',
    body: edited(namedBody, (b) => (part(b, 'template', 'components', 0, 'parameters', 0, 'image').id = '1234')),
    refusedBy: '/template/components/0/parameters/0/image must match exactly one schema in oneOf [ImageParameter]',
    gap: NO_PARAMETER_CHECK,
  },
  {
    label: 'media link that is not a URL',
    body: edited(namedBody, (b) => (part(b, 'template', 'components', 0, 'parameters', 0, 'image').link = 'cdn.example.com/banner.jpg')),
    refusedBy: '/template/components/0/parameters/0/image/link must match format "url" [ImageParameter]',
    gap: NO_PARAMETER_CHECK,
  },
  {
    label: 'text parameter over the 32768 limit',
    body: edited(positionalBody, (b) => (part(b, 'template', 'components', 1, 'parameters', 0).text = 'x'.repeat(32769))),
    refusedBy: '/template/components/1/parameters/0/text must NOT have more than 32768 characters [TextParameter]',
    gap: NO_PARAMETER_CHECK,
  },
  {
    label: 'button without sub_type',
    body: edited(positionalBody, (b) => delete part(b, 'template', 'components', 2).sub_type),
    refusedBy: "/template/components/2 must have required property 'sub_type' [ButtonComponent]",
    gap: 'TemplateComponent does not require sub_type; only ButtonComponent (never applied) does',
  },
  {
    label: 'button without index',
    body: edited(positionalBody, (b) => delete part(b, 'template', 'components', 2).index),
    refusedBy: "/template/components/2 must have required property 'index' [ButtonComponent]",
    gap: 'TemplateComponent does not require index; only ButtonComponent (never applied) does',
  },
  {
    // An integer index is Meta's too (its coupon, offer, catalog and MPM examples; openapi-overlay.ts), but 0 to 9 only.
    label: 'button index out of range',
    body: edited(positionalBody, (b) => (part(b, 'template', 'components', 2).index = 10)),
    refusedBy: '/template/components/2/index must be <= 9 [ButtonComponent]',
  },
  {
    label: 'button parameter without text',
    body: edited(positionalBody, (b) => delete part(b, 'template', 'components', 2, 'parameters', 0).text),
    refusedBy: "/template/components/2/parameters/0 must have required property 'text' [ButtonTextParameter]",
    gap: NO_PARAMETER_CHECK,
  },
  {
    label: 'URL button with a payload parameter',
    body: edited(positionalBody, (b) => (part(b, 'template', 'components', 2).parameters = [{ type: 'payload', payload: 'X' }])),
    refusedBy: '/template/components/2 a url button takes one text parameter [reference §1.4]',
    gap: 'ButtonComponent takes payload or text whatever the sub_type',
  },
  {
    label: 'header with two parameters',
    body: edited(positionalBody, (b) => (part(b, 'template', 'components', 0).parameters as unknown[]).push({ type: 'text', text: 'Bo' })),
    refusedBy: '/template/components/0 a header takes exactly one parameter [reference §1.4]',
    gap: 'HeaderComponent has no maxItems (and is never applied)',
  },
  {
    label: 'image parameter in the body',
    body: edited(namedBody, (b) =>
      (part(b, 'template', 'components', 1).parameters as unknown[]).push({
        type: 'image',
        image: { link: 'https://cdn.example.com/x.jpg' },
      }),
    ),
    refusedBy: '/template/components/1 body parameter types text,text,image [reference §1.4]',
    gap: "BodyComponent's items are any ParameterObject, media included",
  },
  {
    label: 'sub_type and index on a body component',
    body: edited(positionalBody, (b) => Object.assign(part(b, 'template', 'components', 1), { sub_type: 'url', index: '0' })),
    refusedBy: '/template/components/1 sub_type/index on a non-button component [reference §1.4]',
    gap: 'TemplateComponent allows sub_type and index on any type',
  },
  {
    label: 'two body components',
    body: edited(positionalBody, (b) =>
      (part(b, 'template').components as unknown[]).push({ type: 'body', parameters: [{ type: 'text', text: 'x' }] }),
    ),
    refusedBy: '/template/components repeats a component [reference §1.4]',
    gap: 'components is any array of components',
  },
  {
    label: 'named and positional text parameters mixed',
    body: edited(namedBody, (b) => delete part(b, 'template', 'components', 1, 'parameters', 1).parameter_name),
    refusedBy: '/template mixes named and positional text parameters [reference §1.4]',
    gap: 'parameter_name is an optional string (added by the patch)',
  },
];

describe('request mistakes the contract refuses', () => {
  it.each(mistakes.map((m) => [m.label, m] as const))('%s', (_label, mistake) => {
    expect(requestContract(mistake.body).errors.join('\n')).toContain(mistake.refusedBy);
  });
});

describe('spec gaps: which mistakes the declared schema `Message` catches alone', () => {
  // If one of these starts failing, the spec got stricter (or looser): move the mistake
  // between the two lists and check whether a rule in this file became redundant.
  it.each(mistakes.filter((m) => m.gap !== undefined).map((m) => [m.label, m] as const))('Message accepts: %s', (_label, mistake) => {
    expect(schemaErrors('Message', mistake.body)).toEqual([]);
  });

  it.each(mistakes.filter((m) => m.gap === undefined).map((m) => [m.label, m] as const))('Message refuses: %s', (_label, mistake) => {
    expect(schemaErrors('Message', mistake.body)).not.toEqual([]);
  });

  it('no schema in the spec refuses an unknown top-level field: only the §1.2 rule does', () => {
    const body = { ...positionalBody, callback_data: 'x' };
    for (const schema of ['Message', 'TemplateMessage', 'BaseMessageProperties', 'MessageRequest']) {
      expect(schemaErrors(schema, body), schema).toEqual([]);
    }
  });
});

// ---- the 200 answer ------------------------------------------------------------------------

// Meta's documented 200 (reference §1.5, examples/send.response.json).
const accepted = readJson('examples/send.response.json') as Json;

describe('success response against MessageResponsePayload (§1.5)', () => {
  it('the reference example send.response.json', () => {
    expect(responseContract(accepted).errors).toEqual([]);
  });

  it('held_for_quality_assessment is a documented message_status', () => {
    const held = edited(accepted, (r) => (part(r, 'messages', 0).message_status = 'held_for_quality_assessment'));
    expect(responseContract(held).errors).toEqual([]);
  });

  it.each<[string, unknown, string]>([
    [
      'an unknown message_status',
      { ...accepted, messages: [{ id: 'wamid.X', message_status: 'sent' }] },
      '/messages/0/message_status must be equal to one of the allowed values [MessageResponsePayload]',
    ],
    ['an empty object', {}, '/contacts is missing or empty [reference §1.5]'],
    ['messaging_product "foo"', { ...accepted, messaging_product: 'foo' }, '/messaging_product is not "whatsapp" [reference §1.5]'],
    ['an id that is not a wamid', { ...accepted, messages: [{ id: '42' }] }, '/messages/0/id is not a wamid [reference §1.5]'],
  ])('refuses %s', (_label, response, refusedBy) => {
    expect(responseContract(response).errors.join('\n')).toContain(refusedBy);
  });

  it('spec gap: MessageResponsePayload requires nothing and accepts any messaging_product', () => {
    expect(schemaErrors('MessageResponsePayload', {})).toEqual([]);
    expect(schemaErrors('MessageResponsePayload', { messaging_product: 'foo', messages: [{ id: '42' }] })).toEqual([]);
  });
});

// ---- exact bodies --------------------------------------------------------------------------

describe('messageBody builds exactly the reference examples', () => {
  it('send-text.request.json', () => {
    expect(messageBody(text)).toStrictEqual(readJson('examples/send-text.request.json'));
  });

  it('send-template-named.request.json', () => {
    expect(messageBody(named)).toStrictEqual(readJson('examples/send-template-named.request.json'));
  });

  it('positional template: no parameter_name, components in header/body/button order, string index, callback data', () => {
    expect(messageBody(positional)).toStrictEqual({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to: '+14155550123',
      type: 'template',
      biz_opaque_callback_data: 'spring24/123',
      template: {
        name: 'spring_sale_v2',
        language: { code: 'en_GB' },
        components: [
          { type: 'header', parameters: [{ type: 'text', text: 'Ana' }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: 'SPRING25' },
              { type: 'text', text: '£25.00' },
              { type: 'text', text: '31 May 2025' },
            ],
          },
          { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'SPRING25' }] },
        ],
      },
    });
  });

  it('a template without variables has no components key at all', () => {
    const body = messageBody({ kind: 'template', to: '+14155550123', name: 'hello_world', language: 'en_US', body: [] });

    expect(body.template).toStrictEqual({ name: 'hello_world', language: { code: 'en_US' } });
  });

  it('a named URL button carries parameter_name', () => {
    const body = messageBody({
      kind: 'template',
      to: '+14155550123',
      name: 'track_named',
      language: 'en',
      body: [],
      urlButtons: [{ index: 2, name: 'code', text: 'ZX-42' }],
    });

    expect((body.template as { components: unknown }).components).toStrictEqual([
      { type: 'button', sub_type: 'url', index: '2', parameters: [{ type: 'text', parameter_name: 'code', text: 'ZX-42' }] },
    ]);
  });
});
