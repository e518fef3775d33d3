import { GraphRejection } from './graph-error.js';
import { INVALID, requireString, type JsonObject } from './json-checks.js';
import { phoneDigits } from './phone-digits.js';

/**
 * Who a send is addressed to: a phone number in `to`, or a business-scoped user ID in
 * `recipient` ("`to` wins if both"), answered with `contacts[].user_id` and no `wa_id`, as
 * Meta's business-scoped user ID page has it in 2026
 * (https://developers.facebook.com/documentation/business-messaging/whatsapp/business-scoped-user-ids,
 * test/fixtures/meta-pages/bsuid-2026.send-response.to-bsuid.json). Its November 2025 version
 * put the ID in `to` and answered `wa_id: ""`.
 */
export type Addressee = { to: string; waId: string } | { to: string; waId: ''; userId: string };

/** Meta: a user ID is "composed of up to 256 alphanumeric characters" (with its country prefix and dots). */
export const MAX_USER_ID_LENGTH = 256;

export function readAddressee(body: JsonObject): Addressee {
  const recipient = body['recipient'];
  if (recipient !== undefined && (typeof recipient !== 'string' || recipient === '' || recipient.length > MAX_USER_ID_LENGTH)) {
    throw new GraphRejection(INVALID, `Parameter recipient must be a business-scoped user ID (at most ${MAX_USER_ID_LENGTH} characters)`);
  }
  if (body['to'] === undefined && typeof recipient === 'string') return { to: recipient, waId: '', userId: recipient };
  const to = requireString(body, 'to', '');
  const waId = phoneDigits(to);
  if (waId === undefined) {
    throw new GraphRejection(INVALID, `Parameter to is not a valid phone number: ${to}`);
  }
  return { to, waId };
}

/**
 * Meta's answer to an authentication template sent to a user ID (business-scoped user ID
 * page, "Error codes", in its 2026 wording): one-tap, zero-tap and copy-code authentication
 * templates require the user's phone number.
 */
export function userIdNotSupported(): GraphRejection {
  return new GraphRejection(131062, 'Business-scoped User ID (BSUID) recipients are not supported for this message.');
}
