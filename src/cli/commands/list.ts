import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('list')
    .description('list campaigns with their state and counts')
    .option('--json', 'print JSON')
    .action(async (o: { json?: boolean }) => {
      const { statusJson, statusText } = await import('../format.js');
      await withContext(async ({ ledger }) => {
        const statuses = [];
        for (const id of await ledger.listCampaigns()) {
          const status = await ledger.status(id);
          if (status !== undefined) statuses.push({ status, definition: await ledger.getCampaign(id) });
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
