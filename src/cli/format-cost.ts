import type { SendOutcome } from '../campaigns/ingest/producer.js';

/** The plan's cost as `send --json` prints it: `cost` (null when no card covers it), `costReason`, and `maxCost` when given. */
export function costJson(summary: SendOutcome): Record<string, unknown> {
  return {
    cost: summary.cost,
    costReason: summary.costReason,
    ...(summary.maxCost === undefined ? {} : { maxCost: summary.maxCost }),
  };
}

/** The operator's lines about the cost: the total, each market, and what --max-cost would do. */
export function costLines(summary: SendOutcome): string[] {
  const lines: string[] = [];
  const { cost } = summary;
  if (cost === null) {
    lines.push(`  estimated cost: not known (${summary.costReason ?? 'no rate card'})`);
  } else {
    lines.push(`  estimated cost: ${cost.total} ${cost.currency} at most (Meta charges only delivered messages)`);
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
