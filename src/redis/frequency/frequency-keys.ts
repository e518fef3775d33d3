import { portfolioScope } from '../pacer/portfolio-keys.js';

/** A portfolio's record of sends FREQUENCY_CAPS count, in the portfolio's own slot. */
export function frequencyKeys(prefix: string, portfolio: string): { frequency: string; cursor: string } {
  const scope = portfolioScope(prefix, portfolio);
  return { frequency: `${scope}:frequency`, cursor: `${scope}:frequency-cursor` };
}
