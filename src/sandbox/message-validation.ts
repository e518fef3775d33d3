import { GraphRejection, type GraphErrorSpec } from './graph-error.js';
import { INVALID, isObject, rejectUnknownKeys, requireObject, requireString, type JsonObject } from './json-checks.js';
import { phoneDigits } from './phone-digits.js';
import { checkTemplate, type TemplateLookup } from './template-validation.js';

/**
 * Whether a `POST /{phone-number-id}/messages` body is one Meta would accept (reference
 * §1.2–1.4, checklist §7): envelope first, then the content object its `type` names.
 * Pure apart from the template lookup it is handed, so it is tested without a server;
 * limits, acceptance and what Meta reports later by webhook (a text outside the service
 * window, §1.3) are the caller's business.
 */
export interface ValidationContext {
  templates: TemplateLookup;
}

export interface ValidMessage {
  /** `to` exactly as sent: Meta echoes it as `contacts[0].input`. */
  to: string;
  waId: string;
  type: 'text' | 'template';
  /** The template's category as the catalogue has it (MARKETING, UTILITY …); templates only, when known. */
  category?: string;
}

export type ValidationResult = { ok: true; message: ValidMessage } | { ok: false; error: GraphErrorSpec };

const ENVELOPE_KEYS = new Set([
  'messaging_product',
  'recipient_type',
  'to',
  'type',
  'text',
  'template',
  'context',
  'biz_opaque_callback_data',
]);

/**
 * Message types Meta defines (reference §1.2) that the sandbox does not simulate: a
 * template campaign never sends them, so they are refused with 131051 rather than waved
 * through unchecked.
 */
const UNSIMULATED_TYPES = new Set(['image', 'audio', 'video', 'document', 'sticker', 'location', 'contacts', 'interactive', 'reaction']);

const TEXT_KEYS = new Set(['body', 'preview_url']);
const CONTEXT_KEYS = new Set(['message_id']);
export const MAX_TEXT_BODY = 4096;
export const MAX_CALLBACK_DATA = 512;

export function validateMessage(body: unknown, context: ValidationContext): ValidationResult {
  try {
    return { ok: true, message: check(body, context) };
  } catch (error) {
    if (error instanceof GraphRejection) return { ok: false, error: error.spec };
    throw error;
  }
}

function check(body: unknown, context: ValidationContext): ValidMessage {
  if (!isObject(body)) throw new GraphRejection(INVALID, 'The request body must be a JSON object');

  const product = requireString(body, 'messaging_product', '');
  if (product !== 'whatsapp') {
    throw new GraphRejection(INVALID, `Parameter messaging_product must be "whatsapp", got "${product}"`);
  }
  const recipientType = body['recipient_type'];
  if (recipientType !== undefined && recipientType !== 'individual') {
    // Group sends exist at Meta, but a campaign worker only ever messages individuals.
    throw new GraphRejection(INVALID, 'Parameter recipient_type must be "individual"');
  }
  const to = requireString(body, 'to', '');
  const waId = phoneDigits(to);
  if (waId === undefined) {
    throw new GraphRejection(INVALID, `Parameter to is not a valid phone number: ${to}`);
  }
  const type = requireString(body, 'type', '');
  if (UNSIMULATED_TYPES.has(type)) {
    throw new GraphRejection(131051, `Message type ${type} is not supported by the sandbox (only text and template)`);
  }
  if (type !== 'text' && type !== 'template') {
    throw new GraphRejection(INVALID, `Parameter type has an invalid value: ${type}`);
  }
  rejectUnknownKeys(body, ENVELOPE_KEYS, '');
  const other = type === 'text' ? 'template' : 'text';
  if (body[other] !== undefined) {
    throw new GraphRejection(INVALID, `Parameter ${other} is not allowed for messages of type ${type}`);
  }
  checkOptionalEnvelope(body);

  if (type === 'text') {
    checkText(requireObject(body['text'], 'text'));
    return { to, waId, type };
  }
  const { category } = checkTemplate(requireObject(body['template'], 'template'), context.templates).template;
  return category === undefined ? { to, waId, type } : { to, waId, type, category };
}

function checkOptionalEnvelope(body: JsonObject): void {
  const callbackData = body['biz_opaque_callback_data'];
  if (callbackData !== undefined) {
    if (typeof callbackData !== 'string' || callbackData.length > MAX_CALLBACK_DATA) {
      throw new GraphRejection(INVALID, `Parameter biz_opaque_callback_data must be a string of at most ${MAX_CALLBACK_DATA} characters`);
    }
  }
  if (body['context'] !== undefined) {
    const replyTo = requireObject(body['context'], 'context');
    rejectUnknownKeys(replyTo, CONTEXT_KEYS, 'context');
    requireString(replyTo, 'message_id', 'context');
  }
}

function checkText(text: JsonObject): void {
  rejectUnknownKeys(text, TEXT_KEYS, 'text');
  const body = text['body'];
  if (body === undefined) throw GraphRejection.missing('text.body');
  if (typeof body !== 'string' || body === '' || body.length > MAX_TEXT_BODY) {
    throw new GraphRejection(INVALID, `Parameter text.body must be a non-empty string of at most ${MAX_TEXT_BODY} characters`);
  }
  const preview = text['preview_url'];
  if (preview !== undefined && typeof preview !== 'boolean') {
    throw new GraphRejection(INVALID, 'Parameter text.preview_url must be a boolean');
  }
}
