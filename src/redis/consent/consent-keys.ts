import { portfolioScope } from '../pacer/portfolio-keys.js';

/**
 * A business portfolio's consent histories, in the portfolio's own scope (one hash tag, one
 * cluster slot, so record.lua's two keys are in one slot): `consent`, phone digits → that
 * person's entries, newest first; `sources`, the words of each source, kept once.
 */
export function consentKeys(prefix: string, portfolio: string): { consent: string; sources: string } {
  const scope = portfolioScope(prefix, portfolio);
  return { consent: `${scope}:consent`, sources: `${scope}:consent-sources` };
}
