import { z } from 'zod';
import { newWamid } from './ids.js';
import { phoneDigits } from './phone-digits.js';
import { sandboxUserId } from './user-ids.js';
import type { InboundMessage, PreferenceChange } from './webhook-payloads.js';

/**
 * `POST /_sandbox/inbound`: a user writing to a business number, as the sandbox plays it. The
 * body says who wrote what (a text, or a tap on a template's quick-reply button replying to
 * one of the business's messages); the sandbox opens that user's service window and posts
 * the signed `messages` webhook Meta would (reference §3.4), so an opt-out keyword or a
 * button reply can be driven end to end without a phone.
 */
export const MAX_INBOUND_TEXT = 4096;

export const inboundRequestSchema = z
  .strictObject({
    from: z.string().refine((value) => phoneDigits(value) !== undefined, 'must be a phone number (7–15 digits)'),
    text: z.string().min(1, 'text must not be empty').max(MAX_INBOUND_TEXT).optional(),
    button: z.strictObject({ payload: z.string(), text: z.string().min(1, 'button.text (the label) must not be empty') }).optional(),
    /** The wamid of the business message replied to (context.id). */
    contextId: z.string().min(1).optional(),
    /** Default: the sandbox's first number. */
    phoneNumberId: z.string().optional(),
    /** contacts[].profile.name (default "Sandbox user"). */
    name: z.string().min(1).max(256).optional(),
  })
  .refine((body) => (body.text === undefined) !== (body.button === undefined), {
    message: 'give either text (a message) or button ({ payload, text }: a quick-reply tap), not both or neither',
  })
  .refine((body) => body.button === undefined || body.contextId !== undefined, {
    message: 'a button tap replies to a template message: give contextId (its wamid)',
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
  const content =
    request.button === undefined
      ? { kind: 'text' as const, body: request.text ?? '' }
      : { kind: 'button' as const, payload: request.button.payload, text: request.button.text };
  return {
    phoneNumberId,
    waId,
    userId: sandboxUserId(waId),
    ...(usernameUser ? { usernameUser } : {}),
    name: request.name ?? DEFAULT_NAME,
    id: newWamid(waId, 'received'),
    at,
    content,
    ...(request.contextId === undefined ? {} : { contextId: request.contextId }),
  };
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
