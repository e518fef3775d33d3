import { GraphRejection, type GraphErrorSpec } from './graph-error.js';
import { INVALID, isObject, rejectUnknownKeys, requireObject, requireString, type JsonObject } from './json-checks.js';
import { checkMediaMessage, isMediaMessageType, MEDIA_MESSAGE_TYPES, type MediaMessageType } from './media-messages.js';
import type { MediaIds } from './media-object.js';
import { readAddressee, userIdNotSupported } from './recipient-address.js';
import { checkTemplate, type TemplateLookup } from './template-validation.js';

/**
 * Whether a `POST /{phone-number-id}/messages` body is one Meta would accept (reference
 * §1.2–1.4, checklist §7): envelope first, then the content object its `type` names.
 * Pure apart from the template and media lookups it is handed, so it is tested without a
 * server; limits, acceptance and what Meta reports later by webhook (a text outside the
 * service window, §1.3) are the caller's business.
 */
export interface ValidationContext {
  templates: TemplateLookup;
  /** The uploads a media `id` should name (media-object.ts: one naming none fails later, 131053); without it, any ID is taken. */
  media?: MediaIds;
  /** The endpoint the send came to (a GIF-header template goes only to marketing_messages); messages unless said. */
  endpoint?: 'messages' | 'marketing_messages';
}

export type MessageType = 'text' | 'template' | MediaMessageType;

export interface ValidMessage {
  /** The recipient as sent (`to`, or `recipient` for a user ID): Meta echoes it as `contacts[0].input`. */
  to: string;
  /** The phone's digits; '' for a send addressed to a user ID (the runtime looks the phone up). */
  waId: string;
  /** Set only when the send was addressed by `recipient` (a business-scoped user ID). */
  userId?: string;
  type: MessageType;
  /** The template's category as the catalogue has it (MARKETING, UTILITY …); templates only, when known. */
  category?: string;
}

export type ValidationResult = { ok: true; message: ValidMessage } | { ok: false; error: GraphErrorSpec };

/** The content objects, one per type: a send carries the one its `type` names and no other. */
const CONTENT_KEYS: readonly MessageType[] = ['text', 'template', ...MEDIA_MESSAGE_TYPES];

const ENVELOPE_KEYS = new Set<string>([
  'messaging_product',
  'recipient_type',
  'to',
  'recipient',
  'type',
  'context',
  'biz_opaque_callback_data',
  ...CONTENT_KEYS,
]);

/**
 * Message types Meta defines (reference §1.2) that the sandbox does not simulate: a
 * campaign never sends them, so they are refused with 131051 rather than waved through
 * unchecked.
 */
const UNSIMULATED_TYPES = new Set(['sticker', 'location', 'contacts', 'interactive', 'reaction']);

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
  const addressee = readAddressee(body);
  const type = requireString(body, 'type', '');
  if (UNSIMULATED_TYPES.has(type)) {
    throw new GraphRejection(
      131051,
      `Message type ${type} is not supported by the sandbox (only text, template, image, video, document and audio)`,
    );
  }
  if (type !== 'text' && type !== 'template' && !isMediaMessageType(type)) {
    throw new GraphRejection(INVALID, `Parameter type has an invalid value: ${type}`);
  }
  rejectUnknownKeys(body, ENVELOPE_KEYS, '');
  const other = CONTENT_KEYS.find((key) => key !== type && body[key] !== undefined);
  if (other !== undefined) {
    throw new GraphRejection(INVALID, `Parameter ${other} is not allowed for messages of type ${type}`);
  }
  checkOptionalEnvelope(body);

  const message: ValidMessage = { ...addressee, type };
  if (type === 'text') {
    checkText(requireObject(body['text'], 'text'));
    return message;
  }
  if (type !== 'template') {
    checkMediaMessage(type, body[type], context.media);
    return message;
  }
  const { category } = checkTemplate(requireObject(body['template'], 'template'), context.templates, context).template;
  if (category === 'AUTHENTICATION' && 'userId' in addressee) throw userIdNotSupported();
  return category === undefined ? message : { ...message, category };
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
