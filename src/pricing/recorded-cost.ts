import type { PlanCost } from './cost-estimate.js';
import { roundAmount } from './round-amount.js';
import { cardCategoryOf, rateAt, type RateCard } from './rate-card.js';

/**
 * What `status --json` says a campaign costs: `estimated`, the plan's total when it was sent
 * (null when it had none); `billable`, rows whose status webhooks carried a billable `pricing`;
 * `amount`, those rows at the card's rates (null when the card lacks one of their markets or
 * categories, `missing` says which).
 */
export interface CampaignCost {
  currency: string;
  estimated: number | null;
  billable: number;
  amount: number | null;
  missing?: string[];
}

export function campaignCost(
  card: RateCard,
  recorded: { estimate: PlanCost | undefined; billed: readonly { market: string; category: string; messages: number }[] },
  at: number,
): CampaignCost {
  let amount = 0;
  let billable = 0;
  const missing: string[] = [];
  for (const { market, category, messages } of recorded.billed) {
    billable += messages;
    const cardCategory = cardCategoryOf(category);
    const rate = cardCategory === undefined ? undefined : rateAt(card, market, cardCategory, at);
    if (rate === undefined) missing.push(`${market} ${category}`);
    else amount += messages * rate;
  }
  return {
    currency: recorded.estimate?.currency ?? card.currency,
    estimated: recorded.estimate?.total ?? null,
    billable,
    amount: missing.length > 0 ? null : roundAmount(amount),
    ...(missing.length > 0 ? { missing } : {}),
  };
}
