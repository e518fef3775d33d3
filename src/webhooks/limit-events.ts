import { parseMessagingTier } from '../cloud-api/messaging-limit-client.js';
import type { MessagingLimit } from '../config/number-settings.js';

/**
 * A webhook that may change a portfolio's messaging limit (reference cloud-api-2026.md §2, §4):
 * `business_capability_update` says the new limit (`max_daily_conversations_per_business`
 * from v24, `max_daily_conversation_per_phone` before); `account_update` says something of the
 * account changed, so the limit is read again from the API. Neither names a phone number
 * unless its value does; `entry.id` is the WhatsApp Business Account.
 */
export interface LimitUpdate {
  field: 'account_update' | 'business_capability_update';
  /** `entry.id`: the WhatsApp Business Account the change is for. */
  accountId: string;
  /** The limit the webhook says, when it says one. */
  limit?: MessagingLimit;
  /** A phone number the value names (`phone_number_id`), when it names one. */
  phoneNumberId?: string;
}

const FIELDS = new Set(['account_update', 'business_capability_update']);

/** The change as a LimitUpdate, or undefined when it is of another field. */
export function toLimitUpdate(field: unknown, value: Record<string, unknown>, accountId: unknown): LimitUpdate | undefined {
  if (typeof field !== 'string' || !FIELDS.has(field)) return undefined;
  const update: LimitUpdate = { field: field as LimitUpdate['field'], accountId: typeof accountId === 'string' ? accountId : '' };
  if (field === 'business_capability_update') {
    const limit = limitOf(value.max_daily_conversations_per_business) ?? limitOf(value.max_daily_conversation_per_phone);
    if (limit !== undefined) update.limit = limit;
  }
  const number = value.phone_number_id ?? (isRecord(value.metadata) ? value.metadata.phone_number_id : undefined);
  if (typeof number === 'string' && /^\d+$/.test(number)) update.phoneNumberId = number;
  return update;
}

/** 2000, "2000", "TIER_2K", "TIER_UNLIMITED", -1 / "UNLIMITED" (no limit) → the limit; anything else undefined. */
function limitOf(value: unknown): MessagingLimit | undefined {
  if (value === -1 || (typeof value === 'string' && /^(TIER_)?UNLIMITED$/i.test(value))) return 'unlimited';
  if (typeof value === 'string' && value.startsWith('TIER_')) return parseMessagingTier(value);
  const n = typeof value === 'string' && /^\d+$/.test(value) ? Number(value) : value;
  return typeof n === 'number' && Number.isInteger(n) && n > 0 ? n : undefined;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}
