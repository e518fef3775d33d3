import type { CostsView } from '../../app/costs.js';

/** The operator's table: each category, Meta's figures beside the ledger's. */
export function costsText(view: CostsView): string {
  const categories = [...new Set([...view.charged.byCategory, ...view.estimated.byCategory].map((c) => c.category))].sort();
  const money = (n: number | null | undefined) => (n === null || n === undefined ? '?' : n.toFixed(4));
  const lines = [
    `Costs ${view.since} to ${view.until} (${view.currency}; rates from ${view.rateCard})`,
    `  ${'category'.padEnd(28)} ${'Meta: messages'.padStart(14)} ${'charged'.padStart(12)}   ` +
      `${'ledger: billable'.padStart(16)} ${'by card'.padStart(12)}`,
  ];
  for (const category of categories) {
    const meta = view.charged.byCategory.find((c) => c.category === category);
    const ours = view.estimated.byCategory.find((c) => c.category === category);
    lines.push(
      `  ${category.padEnd(28)} ${String(meta?.messages ?? 0).padStart(14)} ${money(meta?.amount ?? 0).padStart(12)}   ` +
        `${String(ours?.messages ?? 0).padStart(16)} ${money(ours === undefined ? 0 : ours.amount).padStart(12)}`,
    );
  }
  lines.push(
    `  ${'total'.padEnd(28)} ${String(view.charged.messages).padStart(14)} ${money(view.charged.amount).padStart(12)}   ` +
      `${String(view.estimated.messages).padStart(16)} ${money(view.estimated.amount).padStart(12)}`,
  );
  if (view.estimated.missing.length > 0) lines.push(`  the rate card has no rate for: ${view.estimated.missing.join(', ')}`);
  lines.push("  Meta's figures are approximate and may lag by hours; the ledger counts rows delivered in the period.");
  return lines.join('\n');
}
