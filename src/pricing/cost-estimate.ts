import { marketOfCountry } from './markets.js';
import { roundAmount } from './round-amount.js';
import { rateAt, type CardCategory, type RateCard } from './rate-card.js';

/** One market's share of a campaign's cost. */
export interface MarketCost {
  market: string;
  category: CardCategory;
  messages: number;
  rate: number;
  amount: number;
}

/** What a campaign would cost by its rate card: an upper bound, since Meta charges only delivered messages. */
export interface PlanCost {
  currency: string;
  total: number;
  byMarket: MarketCost[];
}

/** `cost` null when no card covers the campaign, with `costReason` saying what is missing. */
export type CostEstimate = { cost: PlanCost; costReason: null } | { cost: null; costReason: string };

export { roundAmount } from './round-amount.js';

/**
 * The estimate of sending `byCountry` messages (ISO country → messages; '' for numbers of no
 * country) of `category` at `at` (ms): each market's messages at the card's rate then. Meta
 * charges a utility template inside an open service window too since 2026-10-01, and a
 * campaign cannot know which windows will be open, so every message is priced.
 */
export function estimateCost(
  card: RateCard | undefined,
  category: CardCategory | undefined,
  byCountry: Readonly<Record<string, number>>,
  at: number,
): CostEstimate {
  if (card === undefined) return { cost: null, costReason: 'no rate card is loaded' };
  if (category === undefined) return { cost: null, costReason: "the template's category is not one a rate card prices" };
  const messagesByMarket = new Map<string, number>();
  for (const [country, n] of Object.entries(byCountry)) {
    if (n <= 0) continue;
    const market = marketOfCountry(country === '' ? undefined : country);
    messagesByMarket.set(market, (messagesByMarket.get(market) ?? 0) + n);
  }
  const byMarket: MarketCost[] = [];
  const missing: string[] = [];
  for (const [market, messages] of [...messagesByMarket].sort(([a], [b]) => a.localeCompare(b))) {
    const rate = rateAt(card, market, category, at);
    if (rate === undefined) missing.push(market);
    else byMarket.push({ market, category, messages, rate, amount: roundAmount(messages * rate) });
  }
  if (missing.length > 0) {
    const day = new Date(at).toISOString().slice(0, 10);
    return {
      cost: null,
      costReason: `${card.file} has no ${category} rate in effect on ${day} for ${missing.join(', ')}`,
    };
  }
  return {
    cost: { currency: card.currency, total: roundAmount(byMarket.reduce((sum, m) => sum + m.amount, 0)), byMarket },
    costReason: null,
  };
}
