import type { CampaignStatus, RowRecord } from '../campaigns/campaign.js';
import { roundAmount } from './cost-estimate.js';
import { marketOfRecipient } from './markets.js';
import { cardCategoryOf, rateAt, type RateCard } from './rate-card.js';

/** What the ledger's billable rows come to over a period: by Meta's category, at the card's rates on their delivery day. */
export interface BilledRows {
  messages: number;
  /** Null when the card lacks a rate some rows need (`missing` names them). */
  amount: number | null;
  byCategory: { category: string; messages: number; amount: number | null }[];
  missing: string[];
}

/** The reads it needs of the ledger. */
export interface BilledRowsLedger {
  listCampaigns(): Promise<string[]>;
  status(campaignId: string): Promise<CampaignStatus | undefined>;
  rows(campaignId: string): AsyncIterable<RowRecord[]>;
}

/**
 * Rows whose statuses carried a billable `pricing` and that were delivered in [from, to) (ms),
 * every campaign of the ledger (a purged campaign has no rows left to count). A campaign that
 * finished before `from` is not read.
 */
export async function billedRows(ledger: BilledRowsLedger, card: RateCard, from: number, to: number): Promise<BilledRows> {
  const byCategory = new Map<string, { messages: number; amount: number; priced: boolean }>();
  const missing = new Set<string>();
  for (const id of await ledger.listCampaigns()) {
    const status = await ledger.status(id);
    if (status === undefined || (status.finishedAt !== undefined && status.finishedAt < from)) continue;
    for await (const page of ledger.rows(id)) {
      for (const row of page) {
        const at = row.deliveredAt;
        if (row.pricing?.billable !== true || at === undefined || at < from || at >= to) continue;
        const { category } = row.pricing;
        const entry = byCategory.get(category) ?? { messages: 0, amount: 0, priced: true };
        entry.messages++;
        const market = marketOfRecipient(row.phone);
        const cardCategory = cardCategoryOf(category);
        const rate = cardCategory === undefined ? undefined : rateAt(card, market, cardCategory, at);
        if (rate === undefined) {
          entry.priced = false;
          missing.add(`${market} ${category}`);
        } else {
          entry.amount += rate;
        }
        byCategory.set(category, entry);
      }
    }
  }
  const categories = [...byCategory].sort(([a], [b]) => a.localeCompare(b));
  const messages = categories.reduce((n, [, e]) => n + e.messages, 0);
  const total = categories.reduce((n, [, e]) => n + e.amount, 0);
  return {
    messages,
    amount: missing.size > 0 ? null : roundAmount(total),
    byCategory: categories.map(([category, e]) => ({ category, messages: e.messages, amount: e.priced ? roundAmount(e.amount) : null })),
    missing: [...missing].sort(),
  };
}
