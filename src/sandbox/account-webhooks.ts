import { webhookError } from './async-failures.js';
import type { MessagingLimitTier } from './messaging-limit-tiers.js';
import { SANDBOX_WABA_ID, webhookPayload } from './webhook-payloads.js';

/**
 * Webhooks about the business rather than one message: a problem with the app, the account
 * or Meta's systems (`value.errors` of a `messages` change), and a change of the portfolio's
 * messaging limit (`business_capability_update`). Bodies only; the routes decide when.
 */

/** One account-, app- or system-level error, as `POST /_sandbox/account-error` describes it. */
export interface AccountError {
  phoneNumberId: string;
  code: number;
  title: string;
  details: string;
}

/**
 * Meta's errors webhook (webhooks/reference/messages/errors): a `messages` change of the
 * number with `errors[]` and nothing else, no statuses, no contacts, no messages.
 */
export function accountErrorsPayload(error: AccountError): string {
  const errors = [webhookError({ code: error.code, title: error.title, details: error.details })];
  return webhookPayload(new Map([[error.phoneNumberId, { errors }]]));
}

/** The tiers a business portfolio moves between (Meta's messaging-limits page), and their values in the webhook. */
export const CAPABILITY_TIERS = [
  'TIER_250',
  'TIER_2K',
  'TIER_10K',
  'TIER_100K',
  'TIER_UNLIMITED',
] as const satisfies readonly MessagingLimitTier[];
export type CapabilityTier = (typeof CAPABILITY_TIERS)[number];

/**
 * `max_daily_conversations_per_business` is typed Integer on Meta's page and its payload
 * example carries `2000`; -1 is unlimited, as for the field it replaces.
 */
const DAILY_LIMIT: Readonly<Record<CapabilityTier, number>> = {
  TIER_250: 250,
  TIER_2K: 2000,
  TIER_10K: 10_000,
  TIER_100K: 100_000,
  TIER_UNLIMITED: -1,
};

/** Meta's examples for the phone-number caps that come with a limit (2 at 250, else 25 per WABA). */
const PHONES_PER_BUSINESS_AT_250 = 2;
const PHONES_PER_WABA = 25;

export function dailyLimitOf(tier: CapabilityTier): number {
  return DAILY_LIMIT[tier];
}

/**
 * Meta's `business_capability_update` webhook (webhooks/reference/business_capability_update,
 * v24+): for the WABA, with the trigger time, no metadata. `max_daily_conversation_per_phone`,
 * the v23 field, was removed in February 2026 and is not sent. The phone-number cap comes as
 * `max_phone_numbers_per_business` at the 250 limit and `max_phone_numbers_per_waba` above it.
 */
export function capabilityUpdatePayload(tier: CapabilityTier, atMs: number): string {
  const phones =
    tier === 'TIER_250' ? { max_phone_numbers_per_business: PHONES_PER_BUSINESS_AT_250 } : { max_phone_numbers_per_waba: PHONES_PER_WABA };
  return JSON.stringify({
    object: 'whatsapp_business_account',
    entry: [
      {
        id: SANDBOX_WABA_ID,
        time: Math.floor(atMs / 1000),
        changes: [{ value: { max_daily_conversations_per_business: DAILY_LIMIT[tier], ...phones }, field: 'business_capability_update' }],
      },
    ],
  });
}
