import { readFileSync } from 'node:fs';
import { expect } from 'vitest';
import { titleOf, toGraphError } from '../../src/sandbox/graph-error.js';
import type { MediaIds } from '../../src/sandbox/media-object.js';
import { validateMessage, type ValidationResult } from '../../src/sandbox/message-validation.js';
import { TemplatesStore } from '../../src/sandbox/templates-store.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';
import { templateSend } from './sandbox-fixtures.js';

/**
 * Shared by the sandbox's template-kind unit tests: the sample templates (one of each kind, as
 * the sandbox lists them by default), a send of one, and Meta's error envelope asserted whole.
 */
export const SAMPLES = (
  JSON.parse(readFileSync(new URL('../../samples/templates.json', import.meta.url), 'utf8')) as { data: MessageTemplate[] }
).data;

const store = new TemplatesStore(SAMPLES);

export interface SendOptions {
  endpoint?: 'messages' | 'marketing_messages';
  media?: MediaIds;
}

/** Validates a send of template `name` (en_US) with these components, as the sandbox does at /messages. */
export function check(name: string, components: unknown[], options: SendOptions = {}): ValidationResult {
  return validateMessage(templateSend(name, components), { templates: store, ...options });
}

export function expectAccepted(result: ValidationResult): void {
  if (!result.ok) throw new Error(`expected success, got ${JSON.stringify(result.error)}`);
}

/**
 * Asserts Meta's envelope (reference §2.1): HTTP 400 (404 for 132001), `(#code) title` as the
 * message, OAuthException, `error_data.messaging_product` whatsapp and the details, a trace ID.
 */
export function expectMetaError(result: ValidationResult, code: number, details: string | RegExp): void {
  if (result.ok) throw new Error(`expected error ${code}, got success ${JSON.stringify(result.message)}`);
  const reply = toGraphError(result.error);
  expect(reply.status).toBe(code === 132001 ? 404 : 400);
  expect(reply.body.error).toEqual({
    message: `(#${code}) ${titleOf(code) ?? ''}`,
    type: 'OAuthException',
    code,
    error_data: {
      messaging_product: 'whatsapp',
      details: typeof details === 'string' ? details : (expect.stringMatching(details) as unknown),
    },
    fbtrace_id: expect.any(String) as unknown,
  });
}

export const text = (value: string, parameterName?: string) =>
  parameterName === undefined ? { type: 'text', text: value } : { type: 'text', text: value, parameter_name: parameterName };

export const body = (...parameters: unknown[]) => ({ type: 'body', parameters });
export const header = (...parameters: unknown[]) => ({ type: 'header', parameters });

export function button(subType: string, index: unknown, ...parameters: unknown[]): Record<string, unknown> {
  return { type: 'button', sub_type: subType, index, parameters };
}

export const action = (value: Record<string, unknown>) => ({ type: 'action', action: value });
export const image = (media: Record<string, unknown>) => ({ type: 'image', image: media });
export const video = (media: Record<string, unknown>) => ({ type: 'video', video: media });
export const product = (productRetailerId: string, catalogId = '194836987003835') => ({
  type: 'product',
  product: { product_retailer_id: productRetailerId, catalog_id: catalogId },
});
