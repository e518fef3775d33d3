/**
 * Meta sets the messaging limit and keeps opt-outs per business portfolio, shared by all its
 * phone numbers. PORTFOLIOS names each number's portfolio (`ID:retail,ID2:retail`); a number
 * it does not name is in the default portfolio, so by default every number the deployment
 * sends from shares one.
 */
export const DEFAULT_PORTFOLIO = 'default';

/** A portfolio's name as PORTFOLIOS and MESSAGING_LIMITS write it: starts with a letter, so it never reads as a number ID. */
const PORTFOLIO_NAME = /^[A-Za-z][A-Za-z0-9_-]{0,63}$/;

/** The name, or undefined when it cannot be a portfolio's name. */
export function portfolioNameText(value: string): string | undefined {
  return PORTFOLIO_NAME.test(value) ? value : undefined;
}

/** Phone-number ID → portfolio name, as PORTFOLIOS gives it. */
export type PortfolioAssignments = ReadonlyMap<string, string>;

/** The portfolio a phone number belongs to. */
export function portfolioOf(assignments: PortfolioAssignments, phoneNumberId: string): string {
  return assignments.get(phoneNumberId) ?? DEFAULT_PORTFOLIO;
}
