import { z } from 'zod';
import { newWamid } from './ids.js';
import { phoneDigits } from './phone-digits.js';
import { sandboxUserId } from './user-ids.js';
import type { InboundContent, InboundMessage, PreferenceChange } from './webhook-payloads.js';

/**
 * `POST /_sandbox/inbound`: a user writing to a business number, as the sandbox plays it. The
 * body says who wrote what (a text, a tap on a template's quick-reply button, or the answer of
 * a WhatsApp Flow a template opened, the last two replying to one of the business's messages);
 * the sandbox opens that user's service window and posts the signed `messages` webhook Meta
 * would (reference §3.4), so an opt-out keyword, a button reply or a Flow's answer can be
 * driven end to end without a phone.
 */
export const MAX_INBOUND_TEXT = 4096;

/** Meta's response_json is the Flow's data, a JSON object (its flow_token and the Flow's fields): the sandbox sends nothing else. */
function isJsonObjectText(text: string): boolean {
  try {
    const value: unknown = JSON.parse(text);
    return typeof value === 'object' && value !== null && !Array.isArray(value);
  } catch {
    return false;
  }
}

const flowAnswerSchema = z.strictObject({
  /** `nfm_reply.response_json`, as the Flow's user submitted it. */
  responseJson: z.string().refine(isJsonObjectText, 'flow.responseJson must be a JSON object as text, e.g. {"flow_token":"unused"}'),
});

export const inboundRequestSchema = z
  .strictObject({
    from: z.string().refine((value) => phoneDigits(value) !== undefined, 'must be a phone number (7–15 digits)'),
    text: z.string().min(1, 'text must not be empty').max(MAX_INBOUND_TEXT).optional(),
    button: z.strictObject({ payload: z.string(), text: z.string().min(1, 'button.text (the label) must not be empty') }).optional(),
    /** A Flow's answer: an `interactive` `nfm_reply` message. */
    flow: flowAnswerSchema.optional(),
    /** The wamid of the business message replied to (context.id). */
    contextId: z.string().min(1).optional(),
    /** Default: the sandbox's first number. */
    phoneNumberId: z.string().optional(),
    /** contacts[].profile.name (default "Sandbox user"). */
    name: z.string().min(1).max(256).optional(),
  })
  .refine((body) => [body.text, body.button, body.flow].filter((given) => given !== undefined).length === 1, {
    message:
      "give one of text (a message), button ({ payload, text }: a quick-reply tap) or flow ({ responseJson }: a Flow's answer), " +
      'not two or none',
  })
  .refine((body) => (body.button === undefined && body.flow === undefined) || body.contextId !== undefined, {
    message: "a button tap or a Flow's answer replies to a template message: give contextId (its wamid)",
    path: ['contextId'],
  });

export type InboundRequest = z.infer<typeof inboundRequestSchema>;

/** contacts[].profile.name when the request names no one. */
export const DEFAULT_NAME = 'Sandbox user';

/**
 * The message the request describes, with a fresh inbound wamid; `phoneNumberId` already
 * resolved. A username user's (the usernameUsers fault) carries their user ID only.
 */
export function inboundMessage(request: InboundRequest, phoneNumberId: string, at: number, usernameUser = false): InboundMessage {
  const waId = phoneDigits(request.from) ?? '';
  return {
    phoneNumberId,
    waId,
    userId: sandboxUserId(waId),
    ...(usernameUser ? { usernameUser } : {}),
    name: request.name ?? DEFAULT_NAME,
    id: newWamid(waId, 'received'),
    at,
    content: contentOf(request),
    ...(request.contextId === undefined ? {} : { contextId: request.contextId }),
  };
}

function contentOf(request: InboundRequest): InboundContent {
  if (request.button !== undefined) return { kind: 'button', payload: request.button.payload, text: request.button.text };
  if (request.flow !== undefined) return { kind: 'flow', responseJson: request.flow.responseJson };
  return { kind: 'text', body: request.text ?? '' };
}

/**
 * `POST /_sandbox/user-preferences`: a user stopping or resuming marketing messages from the
 * business, or subscribing through its In-App Signup link (`signup`, which lifts a stop as a
 * resume does), as Meta reports it by a `user_preferences` webhook (reference §3.5); a
 * username user's (usernameUsers) carries their user ID only.
 */
export const preferencesRequestSchema = z
  .strictObject({
    from: z.string().refine((value) => phoneDigits(value) !== undefined, 'must be a phone number (7–15 digits)'),
    value: z.enum(['stop', 'resume', 'signup']),
    /** The signup entity's ID (`signup_id`); signups only, default SANDBOX_SIGNUP_ID. */
    signupId: z.string().regex(/^\d+$/, 'signupId must be a signup entity ID (digits)').optional(),
    /** Default: the sandbox's first number. */
    phoneNumberId: z.string().optional(),
    /** contacts[].profile.name (default "Sandbox user"). */
    name: z.string().min(1).max(256).optional(),
  })
  .refine((body) => body.signupId === undefined || body.value === 'signup', {
    message: 'signupId goes with value "signup" only',
    path: ['signupId'],
  });

export type PreferencesRequest = z.infer<typeof preferencesRequestSchema>;

/**
 * The signup link the sandbox's business shares (`POST /<WABA_ID>/signups` makes one at
 * Meta): a signup names the entity the user came through, and every user comes through this
 * one unless the request names another.
 */
export const SANDBOX_SIGNUP_ID = '100000000000301';

/** The preference change the request describes; `phoneNumberId` already resolved. */
export function preferenceChange(request: PreferencesRequest, phoneNumberId: string, at: number, usernameUser = false): PreferenceChange {
  const waId = phoneDigits(request.from) ?? '';
  return {
    phoneNumberId,
    waId,
    userId: sandboxUserId(waId),
    ...(usernameUser ? { usernameUser } : {}),
    name: request.name ?? DEFAULT_NAME,
    value: request.value,
    ...(request.value === 'signup' ? { signupId: request.signupId ?? SANDBOX_SIGNUP_ID } : {}),
    at,
  };
}
