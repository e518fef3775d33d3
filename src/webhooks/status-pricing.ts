import type { StatusPricing } from '../campaigns/ledger.js';
import { marketOfRecipient } from '../pricing/markets.js';
import { pricingCategoryOf } from '../pricing/pricing-category.js';

/**
 * A status's `pricing` object (reference cloud-api-2026.md §1): `{billable, pricing_model: "PMP",
 * type, category}`, on one status per message from v24. `billable` is being deprecated: when it
 * is absent, a `regular` type is what Meta charges (the free types are `free_customer_service`
 * and `free_entry_point`). The market is the recipient's, from `recipient_id` (a phone's digits)
 * or else `recipient_user_id` (a business-scoped user ID starts with the user's country).
 * Undefined when the status carries no readable pricing.
 */
export function statusPricing(item: Record<string, unknown>): StatusPricing | undefined {
  const pricing = item.pricing;
  if (typeof pricing !== 'object' || pricing === null) return undefined;
  const { category, billable, type } = pricing as Record<string, unknown>;
  // Spellings Meta varies are read as one; a category it adds is kept and counted, not dropped.
  if (typeof category !== 'string') return undefined;
  const recipient =
    typeof item.recipient_id === 'string' && item.recipient_id !== ''
      ? item.recipient_id
      : typeof item.recipient_user_id === 'string'
        ? item.recipient_user_id
        : '';
  return {
    category: pricingCategoryOf(category),
    billable: typeof billable === 'boolean' ? billable : type === 'regular',
    market: marketOfRecipient(recipient),
  };
}
