/** Meta's tiers (reference §4; OpenAPI `WhatsAppAccountNumber.messaging_limit_tier`, plus the 2K step of the current field). */
export const MESSAGING_LIMIT_TIERS = ['TIER_50', 'TIER_250', 'TIER_1K', 'TIER_2K', 'TIER_10K', 'TIER_100K', 'TIER_UNLIMITED'] as const;
export type MessagingLimitTier = (typeof MESSAGING_LIMIT_TIERS)[number];
