import { basename } from 'node:path';
import type { SendOutcome } from '../campaigns/ingest/producer.js';
import { defaultRateCardFile } from '../pricing/rate-card.js';
import { printable } from '../text/operator-text.js';

/** The operator's lines about the cost: the total, each market, and what --max-cost would do. */
export function costLines(summary: SendOutcome): string[] {
  const lines: string[] = [];
  const { cost } = summary;
  if (cost === null) {
    lines.push(`  estimated cost: not known (${printable(summary.costReason ?? 'no rate card')})`);
  } else {
    lines.push(`  estimated cost: ${cost.total} ${cost.currency} at most (Meta charges only delivered messages)`);
    const example = summary.rateCard !== null && basename(summary.rateCard) === basename(defaultRateCardFile());
    const note = example ? ": an EXAMPLE card, not Meta's rates (set RATE_CARD_FILE: docs/costs.md)" : '';
    lines.push(`    rates from ${printable(summary.rateCard ?? '?')}${note}`);
    for (const m of cost.byMarket) {
      lines.push(`    ${m.market}: ${m.messages} ${m.category} × ${m.rate} = ${m.amount} ${cost.currency}`);
    }
  }
  if (summary.maxCost !== undefined) {
    const { amount, refused } = summary.maxCost;
    lines.push(refused === null ? `  --max-cost ${amount}: within it` : `  --max-cost ${amount}: a send would refuse it (${refused})`);
  }
  return lines;
}
