import type { RedisClient } from '../key-scope.js';
import { phoneNumbersKey } from '../ledger/ledger-keys.js';
import { portfolioOf, type PortfolioAssignments } from '../../portfolios/portfolios.js';

/**
 * Where a portfolio's own keys live (its user links, its messaging-limit count, its
 * opt-outs, its marketing caps): one hash tag per portfolio, so on Redis Cluster they share a
 * slot of their own, apart from every number's.
 */
export function portfolioScope(prefix: string, portfolio: string): string {
  return `${prefix}:{${prefix}:portfolio:${portfolio}}`;
}

/** A portfolio's record of marketing caps (131049), which every number's copy follows: phone → ms the wait ends. */
export function portfolioMarketingCapsKey(prefix: string, portfolio: string): string {
  return `${portfolioScope(prefix, portfolio)}:marketing-caps`;
}

/**
 * The numbers of a portfolio that the deployment has sent from (every number that has had a
 * campaign), sorted: those PORTFOLIOS names for it, and for the default portfolio every
 * other number.
 */
export async function numbersOfPortfolio(
  redis: RedisClient,
  prefix: string,
  assignments: PortfolioAssignments,
  portfolio: string,
): Promise<string[]> {
  const known = await redis.smembers(phoneNumbersKey(prefix));
  const named = [...assignments].filter(([, name]) => name === portfolio).map(([id]) => id);
  return [...new Set([...known, ...named])].filter((id) => portfolioOf(assignments, id) === portfolio).sort();
}
