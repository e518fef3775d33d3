import { GraphRejection, type GraphErrorSpec } from './graph-error.js';
import { issuedHere } from './ids.js';
import { INVALID, isObject, rejectUnknownKeys, requireObject, requireString } from './json-checks.js';
import { wamidParts } from './wamid-parts.js';

/**
 * Marking a user's message as read, optionally with a typing indicator: a `POST
 * /{phone-number-id}/messages` whose body has `status: "read"` and the `message_id` of a
 * message the user sent, answered `{"success": true}` (Meta's "Mark messages as read" and
 * "Typing indicators" pages,
 * https://developers.facebook.com/documentation/business-messaging/whatsapp/messages/mark-message-as-read
 * and …/whatsapp/typing-indicators). "If you mark a message as read with an invalid message
 * ID, the API returns error code 131009" (the page as updated 2026-06-28): the sandbox takes
 * as valid the IDs of messages users sent it (POST /_sandbox/inbound), and nothing else;
 * Meta's page of 2024 also says "You cannot mark outgoing messages you sent as read", so a
 * business message's ID is invalid here too.
 */
export function isMarkReadBody(body: unknown): boolean {
  return isObject(body) && body['status'] !== undefined;
}

const KEYS = new Set(['messaging_product', 'status', 'message_id', 'typing_indicator']);
const TYPING_KEYS = new Set(['type']);

/** Why Meta would refuse this mark-as-read body; undefined when it would answer success. */
export function markReadProblem(body: unknown): GraphErrorSpec | undefined {
  try {
    check(body);
    return undefined;
  } catch (error) {
    if (error instanceof GraphRejection) return error.spec;
    throw error;
  }
}

function check(body: unknown): void {
  if (!isObject(body)) throw new GraphRejection(INVALID, 'The request body must be a JSON object');
  rejectUnknownKeys(body, KEYS, '');
  const product = requireString(body, 'messaging_product', '');
  if (product !== 'whatsapp') throw new GraphRejection(INVALID, `Parameter messaging_product must be "whatsapp", got "${product}"`);
  const status = requireString(body, 'status', '');
  if (status !== 'read') throw new GraphRejection(INVALID, `Parameter status must be "read", got "${status}"`);
  const messageId = requireString(body, 'message_id', '');
  if (body['typing_indicator'] !== undefined) {
    const typing = requireObject(body['typing_indicator'], 'typing_indicator');
    rejectUnknownKeys(typing, TYPING_KEYS, 'typing_indicator');
    if (requireString(typing, 'type', 'typing_indicator') !== 'text') {
      throw new GraphRejection(INVALID, 'Parameter typing_indicator.type must be "text"');
    }
  }
  const parts = wamidParts(messageId);
  if (parts === undefined || parts.kind !== 'received' || !issuedHere(parts.hexId)) {
    throw new GraphRejection(131009, `Parameter message_id is not the ID of a message a user sent: ${messageId}`);
  }
}
