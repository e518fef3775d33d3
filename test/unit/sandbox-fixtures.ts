import { expect } from 'vitest';
import { toGraphError, type GraphErrorSpec } from '../../src/sandbox/graph-error.js';
import type { ValidationResult } from '../../src/sandbox/message-validation.js';
import { TemplatesStore } from '../../src/sandbox/templates-store.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';

/** Templates covering every shape the sandbox validates, for the sandbox unit tests. */
const body = (text: string) => ({ type: 'BODY' as const, text });

export const FIXTURE_TEMPLATES: MessageTemplate[] = [
  {
    name: 'order_update',
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    parameter_format: 'POSITIONAL',
    components: [body('Hi {{1}}, your order {{2}} has shipped.')],
  },
  {
    name: 'appointment_reminder_named',
    language: 'en_US',
    status: 'APPROVED',
    parameter_format: 'NAMED',
    components: [body('Hello {{first_name}}, see you on {{appointment_time}}.')],
  },
  {
    name: 'spring_promo',
    language: 'en_US',
    status: 'APPROVED',
    category: 'MARKETING',
    parameter_format: 'POSITIONAL',
    components: [
      { type: 'HEADER', format: 'IMAGE' },
      body('Hi {{1}}, {{2}} off everything.'),
      { type: 'BUTTONS', buttons: [{ type: 'QUICK_REPLY', text: 'Stop promotions' }] },
    ],
  },
  {
    name: 'text_header_url',
    language: 'en_GB',
    status: 'APPROVED',
    parameter_format: 'POSITIONAL',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Hello {{1}}' },
      body('Use code {{1}} to save {{2}} until {{3}}.'),
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'URL', text: 'Shop', url: 'https://shop.example.com/?c={{1}}' },
          { type: 'QUICK_REPLY', text: 'Stop' },
        ],
      },
    ],
  },
  {
    name: 'static_body',
    language: 'en_US',
    status: 'APPROVED',
    parameter_format: 'POSITIONAL',
    components: [body('Our store opens at 9.')],
  },
  {
    name: 'document_header',
    language: 'en_US',
    status: 'APPROVED',
    parameter_format: 'POSITIONAL',
    components: [{ type: 'HEADER', format: 'DOCUMENT' }, body('Your invoice is attached.')],
  },
  {
    name: 'location_header',
    language: 'en_US',
    status: 'APPROVED',
    parameter_format: 'POSITIONAL',
    components: [{ type: 'HEADER', format: 'LOCATION' }, body('Find us here.')],
  },
  {
    name: 'winter_clearance',
    language: 'en_US',
    status: 'PAUSED',
    parameter_format: 'POSITIONAL',
    components: [body('Hi {{1}}, last chance.')],
  },
  {
    name: 'legacy_welcome',
    language: 'en_US',
    status: 'DISABLED',
    parameter_format: 'POSITIONAL',
    components: [body('Welcome {{1}}.')],
  },
  {
    name: 'new_launch',
    language: 'en_US',
    status: 'PENDING',
    parameter_format: 'POSITIONAL',
    components: [body('Hi {{1}}.')],
  },
  {
    name: 'parcel_named_url',
    language: 'en_US',
    status: 'APPROVED',
    parameter_format: 'NAMED',
    components: [
      body('Hi {{first_name}}, your parcel is on its way.'),
      { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Track', url: 'https://track.example.com/{{tracking_code}}' }] },
    ],
  },
];

export function fixtureStore(): TemplatesStore {
  return new TemplatesStore(FIXTURE_TEMPLATES);
}

export function textParam(text: string, parameterName?: string): Record<string, unknown> {
  return parameterName === undefined ? { type: 'text', text } : { type: 'text', text, parameter_name: parameterName };
}

/** A valid positional `order_update` send; tests change one thing at a time. */
export function orderUpdate(overrides: Record<string, unknown> = {}): Record<string, unknown> {
  return {
    messaging_product: 'whatsapp',
    recipient_type: 'individual',
    to: '+44 7700 900123',
    type: 'template',
    template: {
      name: 'order_update',
      language: { code: 'en_US' },
      components: [{ type: 'body', parameters: [textParam('Ana'), textParam('A-10023')] }],
    },
    ...overrides,
  };
}

/** A send of template `name` (en_US unless given) with the given components. */
export function templateSend(name: string, components: unknown, language = 'en_US'): Record<string, unknown> {
  return orderUpdate({ template: { name, language: { code: language }, components } });
}

/** Asserts the result is Meta's error `code`, answered with `status`, details matching. */
export function expectGraphError(result: ValidationResult, code: number, status: number, details?: string | RegExp): GraphErrorSpec {
  if (result.ok) throw new Error(`expected error ${code}, got success ${JSON.stringify(result.message)}`);
  expect(result.error.code).toBe(code);
  expect(toGraphError(result.error).status).toBe(status);
  if (typeof details === 'string') expect(result.error.details).toBe(details);
  else if (details !== undefined) expect(result.error.details).toMatch(details);
  return result.error;
}

/**
 * Asserts the result is Meta's answer to an absent required field (reference §7 item 1):
 * 400 / 100 worded `(#100) The parameter <path> is required.` with no error_data.
 */
export function expectMissingField(result: ValidationResult, path: string): void {
  if (result.ok) throw new Error(`expected missing ${path}, got success ${JSON.stringify(result.message)}`);
  const reply = toGraphError(result.error);
  expect(reply.status).toBe(400);
  expect(reply.body.error).toEqual({
    message: `(#100) The parameter ${path} is required.`,
    type: 'OAuthException',
    code: 100,
    fbtrace_id: expect.any(String) as unknown,
  });
}
