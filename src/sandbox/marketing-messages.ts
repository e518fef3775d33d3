import type { GraphErrorSpec } from './graph-error.js';
import { INVALID, isObject } from './json-checks.js';
import type { ValidMessage } from './message-validation.js';

/**
 * What `POST /{phone-number-id}/marketing_messages` (Meta's Marketing Messages API, reference
 * §3) adds to `/messages`: two optional envelope fields, and a refusal of anything but a
 * MARKETING template. Which code Meta answers for a text or another category is the reading of
 * reference §3 (134100, "marketing only"); the openapi schema lists no TTL field (the
 * marketing TTL is the template's `message_send_ttl_seconds`), so none is accepted here.
 */
export const MARKETING_ONLY = 134100;
export const MARKETING_MESSAGES_CODES = [134100, 134101, 134102, 134103] as const;

const PRODUCT_POLICIES = new Set(['CLOUD_API_FALLBACK', 'STRICT']);

/** The body without the fields only this endpoint takes, once they are valid; or Meta's refusal of them. */
export function withoutMarketingFields(body: unknown): { ok: true; body: unknown } | { ok: false; error: GraphErrorSpec } {
  if (!isObject(body)) return { ok: true, body };
  const { product_policy: policy, message_activity_sharing: sharing, ...rest } = body;
  if (policy !== undefined && (typeof policy !== 'string' || !PRODUCT_POLICIES.has(policy))) {
    return { ok: false, error: { code: INVALID, details: 'Parameter product_policy must be CLOUD_API_FALLBACK or STRICT' } };
  }
  if (sharing !== undefined && typeof sharing !== 'boolean') {
    return { ok: false, error: { code: INVALID, details: 'Parameter message_activity_sharing must be a boolean' } };
  }
  return { ok: true, body: rest };
}

/** A validated message this endpoint still refuses: a text or media message, or a template that is not MARKETING. */
export function marketingOnlyRefusal(message: ValidMessage): GraphErrorSpec | undefined {
  if (message.type === 'template' && message.category === 'MARKETING') return undefined;
  const what = message.type === 'template' ? `a ${message.category ?? 'non-marketing'} template` : `a message of type ${message.type}`;
  return { code: MARKETING_ONLY, details: `The Marketing Messages API sends marketing templates only, not ${what}` };
}

/** The onboarding answer set by the `marketingMessagesRefusal` fault, worded for its code. */
export function onboardingRefusal(code: number): GraphErrorSpec {
  const details: Record<number, string> = {
    134100: 'The Marketing Messages API sends marketing templates only',
    134101: 'The template is not yet available on the Marketing Messages API; try again in a few minutes',
    134102: 'This business is not eligible for the Marketing Messages API: complete onboarding in WhatsApp Manager',
    134103: 'The Marketing Messages API is not available for this business',
  };
  return { code, details: details[code] ?? 'The Marketing Messages API refused the message' };
}
