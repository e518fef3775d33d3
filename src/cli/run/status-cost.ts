import type { CampaignCost } from '../../pricing/recorded-cost.js';

/** The operator's line about a campaign's cost (statusCost, src/app/status-cost.ts). */
export function costLine(cost: CampaignCost): string {
  const amount = cost.amount === null ? `not known (no rate for ${cost.missing?.join(', ')})` : `${cost.amount} ${cost.currency}`;
  const estimated = cost.estimated === null ? '' : ` (estimated ${cost.estimated} ${cost.currency})`;
  return `  cost: ${cost.billable} billable messages, ${amount}${estimated}`;
}
