import type { Command } from 'commander';
import { withContext } from '../with-context.js';

/** Campaigns read from Redis at once. */
const LIST_BATCH = 100;

export function register(program: Command): void {
  program
    .command('list')
    .description('list campaigns with their state and counts, newest first')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const { statusText } = await import('../format.js');
      const { statusJson } = await import('../../app/views/status-view.js');
      const { newestFirst } = await import('../../campaigns/campaign-order.js');
      const { printableJson } = await import('../../text/operator-text.js');
      await withContext(async ({ ledger }) => {
        const ids = newestFirst(await ledger.listCampaigns());
        const statuses = [];
        // Campaigns read a batch at a time, kept newest first: the connection carries a batch's
        // reads together instead of a round trip each.
        for (let start = 0; start < ids.length; start += LIST_BATCH) {
          const batch = ids.slice(start, start + LIST_BATCH);
          const read = await Promise.all(
            batch.map(async (id) => {
              const status = await ledger.status(id);
              return status === undefined ? undefined : { status, definition: await ledger.getCampaign(id) };
            }),
          );
          for (const campaign of read) if (campaign !== undefined) statuses.push(campaign);
        }
        // --json: one JSON array (empty when there are none), so it parses as one document; printableJson escapes what a
        // terminal would act on (C1, bidi) and JSON.stringify leaves raw, the same document to a parser.
        if (o.json === true)
          console.log(printableJson(JSON.stringify(statuses.map(({ status, definition }) => statusJson(status, undefined, definition)))));
        else
          console.log(
            statuses.length === 0
              ? 'No campaigns under this QUEUE_PREFIX.'
              : statuses.map(({ status, definition }) => statusText(status, undefined, definition)).join('\n'),
          );
      });
    });
}
