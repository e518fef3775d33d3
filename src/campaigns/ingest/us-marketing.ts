import type { CountryCode } from 'libphonenumber-js';

/**
 * Meta has not delivered MARKETING templates to US numbers since 2025-04-01: it accepts the
 * send and fails it by webhook with 131049 (reference §3). Such rows are skipped at ingest
 * (MARKETING_US_PAUSED) unless the campaign says Meta lifted the pause (`--allow-us-marketing`).
 * Utility and authentication templates, and texts, still reach US numbers.
 */
export function usMarketingPaused(category: string | undefined, allowUsMarketing: boolean): boolean {
  return category === 'MARKETING' && !allowUsMarketing;
}

/** Whether a checked row of such a campaign is skipped: its number is in the US (not Canada or another +1 country). */
export function skipsForUsMarketing(paused: boolean, country: CountryCode | undefined): boolean {
  return paused && country === 'US';
}

/** Short: it is stored on every such row. */
export const MARKETING_US_PAUSED_DETAIL =
  'a MARKETING template to a US number: Meta has paused marketing to the US since 2025-04-01 and fails it with 131049 ' +
  '(--allow-us-marketing sends it anyway)';
