import type { Command } from 'commander';
import { withContext } from '../with-context.js';

/** Campaigns read from Redis at once. */
const LIST_BATCH = 100;

export function register(program: Command): void {
  program
    .command('list')
    .description('list campaigns with their state and counts')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const { statusJson, statusText } = await import('../format.js');
      await withContext(async ({ ledger }) => {
        const ids = await ledger.listCampaigns();
        const statuses = [];
        // Campaigns read a batch at a time, kept in the index's order: the connection carries a batch's
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
        // --json: one JSON array (empty when there are none), so it parses as one document.
        if (o.json === true)
          console.log(JSON.stringify(statuses.map(({ status, definition }) => statusJson(status, undefined, definition))));
        else
          console.log(
            statuses.length === 0
              ? 'No campaigns under this QUEUE_PREFIX.'
              : statuses.map(({ status, definition }) => statusText(status, undefined, definition)).join('\n'),
          );
      });
    });
}
