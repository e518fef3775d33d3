import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('costs')
    .description(
      "what Meta charged the WABA (its pricing_analytics) beside what the ledger's billable rows come to at the rate card's rates",
    )
    .option('--since <date>', 'from this day (YYYY-MM-DD, UTC) or time (ISO 8601 with offset), at most 90 days ago (default: this month)')
    .option('--json', 'print JSON')
    .action(async (o: { since?: string; json?: boolean }) => {
      const { readCosts } = await import('../../app/costs.js');
      const { costsText } = await import('../run/costs.js');
      const view = await withContext((context) => readCosts(context, { since: o.since }), ['WHATSAPP_ACCESS_TOKEN']);
      console.log(o.json === true ? JSON.stringify(view) : costsText(view));
    });
}
