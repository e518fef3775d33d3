/**
 * Meta's pricing categories, as a status's `pricing.category` and the rate cards name them.
 * Meta spells one category more than one way (`authentication-international` on its status
 * webhook page, `authentication_international` elsewhere, rate cards in capitals with
 * spaces), so every category read goes through `pricingCategoryOf`: lower case, `-` and
 * spaces as `_`. A category Meta adds is kept as given (so what a row cost can still be told
 * once a card prices it), never dropped; `isKnownPricingCategory` says whether it is one of ours.
 */
export const PRICING_CATEGORIES = [
  'marketing',
  'marketing_lite',
  'utility',
  'authentication',
  'authentication_international',
  'service',
  'referral_conversion',
] as const;

/** What a category that cannot be stored as given (empty, or characters a label cannot hold) is kept as. */
export const OTHER_PRICING_CATEGORY = 'other';

const KNOWN: ReadonlySet<string> = new Set(PRICING_CATEGORIES);
const STORABLE = /^[a-z0-9_.]{1,64}$/;

/** A category as one spelling: `Authentication-International` → `authentication_international`. */
export function pricingCategoryOf(raw: string): string {
  const normal = raw
    .trim()
    .toLowerCase()
    .replace(/[-\s]+/g, '_');
  return STORABLE.test(normal) ? normal : OTHER_PRICING_CATEGORY;
}

export function isKnownPricingCategory(category: string): boolean {
  return KNOWN.has(category);
}
