import { readFileSync } from 'node:fs';
import { Ajv2020 } from 'ajv/dist/2020.js';
import addFormatsModule from 'ajv-formats';
import { describe, expect, it } from 'vitest';
import { messageBody } from '../../src/cloud-api/message-body.js';
import type { OutboundMessage } from '../../src/cloud-api/outbound-message.js';

// ajv-formats is CommonJS: under NodeNext its default import is the module object.
const addFormats = addFormatsModule as unknown as typeof addFormatsModule.default;

const reference = (path: string): URL => new URL(`../fixtures/reference/${path}`, import.meta.url);
const readJson = (path: string): unknown => JSON.parse(readFileSync(reference(path), 'utf8')) as unknown;

const spec = readJson('openapi/business-messaging-api_v23.0.patched.json') as { components: unknown };
const ajv = new Ajv2020({ strict: false, allErrors: true });
addFormats(ajv);
ajv.addSchema({ $id: 'meta', components: spec.components });
const validateMessage = ajv.getSchema('meta#/components/schemas/Message');
if (validateMessage === undefined) throw new Error('Message schema not found in the patched spec');

/** The ajv verdict with readable errors, so a failure says what the spec objects to. */
function specErrors(body: unknown): string | undefined {
  return validateMessage?.(body) === true ? undefined : ajv.errorsText(validateMessage?.errors, { separator: '\n' });
}

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

const cases: [string, OutboundMessage][] = [
  ['text', text],
  ['text with preview_url', { kind: 'text', to: '+14155550123', body: 'See https://example.com', previewUrl: true }],
  ['positional template with text header, body and URL button', positional],
  ['named template with image header (parameter_name)', named],
  [
    'named template with a named URL button',
    {
      kind: 'template',
      to: '+4915112345678',
      name: 'track_named',
      language: 'de',
      body: [{ name: 'first_name', text: 'Jonas' }],
      urlButtons: [{ index: 1, name: 'tracking_code', text: 'ZX-42' }],
    },
  ],
  [
    'template with video header',
    { kind: 'template', to: '+14155550123', name: 'promo_video', language: 'en_US', header: { type: 'video', link: 'https://cdn.example.com/a.mp4' }, body: [{ text: 'Ana' }] },
  ],
  [
    'template with document header',
    { kind: 'template', to: '+14155550123', name: 'invoice', language: 'en_US', header: { type: 'document', link: 'https://cdn.example.com/a.pdf' }, body: [] },
  ],
  ['template without any variables', { kind: 'template', to: '+14155550123', name: 'hello_world', language: 'en_US', body: [] }],
];

describe('messageBody validates against Meta’s Message schema (patched OpenAPI v23.0)', () => {
  it.each(cases)('%s', (_label, message) => {
    expect(specErrors(messageBody(message))).toBeUndefined();
  });

  it('the validator is strict enough to fail: a template without language is refused', () => {
    const body = messageBody(named);
    delete (body.template as Record<string, unknown>).language;

    expect(specErrors(body)).toMatch(/language/);
  });

  it('the validator refuses a button index sent as a number instead of a string', () => {
    const body = messageBody(positional);
    const components = (body.template as { components: Record<string, unknown>[] }).components;
    const button = components.find((c) => c.type === 'button');
    expect(button).toBeDefined();
    if (button !== undefined) button.index = 0;

    expect(specErrors(body)).toBeDefined();
  });

  it('the validator refuses a body whose type does not match its content', () => {
    expect(specErrors({ ...messageBody(text), type: 'template' })).toBeDefined();
  });
});

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
