import { DEFAULT_PORTFOLIO, portfolioNameText, portfolioOf, type PortfolioAssignments } from '../portfolios/portfolios.js';
import { messagingLimitText, type MessagingLimit } from './number-settings.js';

const EXAMPLE = 'retail:2000,default:unlimited (or a number of the portfolio: 106540352242922:10000)';

/**
 * MESSAGING_LIMITS → each business portfolio's limit. Meta sets one limit per portfolio, so
 * an entry names a portfolio (`retail:2000`, names start with a letter) or a phone-number ID
 * (`106540352242922:10000`: the limit of that number's portfolio, as PORTFOLIOS places it).
 * Two entries that give one portfolio different values are an error naming both; the same
 * value given twice is not. Returns the portfolio → limit map, or what is wrong.
 */
export function parsePortfolioLimits(raw: string, portfolios: PortfolioAssignments): ReadonlyMap<string, MessagingLimit> | string {
  const limits = new Map<string, MessagingLimit>();
  /** The entry that gave each portfolio its limit, to name it beside a conflicting one. */
  const givenBy = new Map<string, string>();
  for (const entry of raw.split(',').map((part) => part.trim())) {
    if (entry === '') continue;
    const match = /^([^:\s]+)\s*:\s*(\S+)$/.exec(entry);
    const key = match?.[1] ?? '';
    const value = match === null ? undefined : messagingLimitText(match[2] ?? '');
    const portfolio = /^\d+$/.test(key) ? portfolioOf(portfolios, key) : portfolioNameText(key);
    // The entry is quoted cut short: a pasted secret must not land whole in an error.
    if (value === undefined || portfolio === undefined) return `"${entry.slice(0, 40)}" is not portfolio:limit; write it as ${EXAMPLE}`;
    const earlier = givenBy.get(portfolio);
    if (earlier !== undefined && limits.get(portfolio) !== value) {
      const where = portfolio === DEFAULT_PORTFOLIO ? 'the default portfolio' : `portfolio ${portfolio}`;
      return `"${earlier}" and "${entry}" give ${where} different limits; Meta sets one limit per portfolio, give it once`;
    }
    limits.set(portfolio, value);
    givenBy.set(portfolio, entry);
  }
  return limits;
}
