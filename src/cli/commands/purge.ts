import type { Command } from 'commander';
import type { PurgeSummary } from '../../app/campaign-purge.js';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('purge')
    .description("delete a finished campaign's personal data (rows, values, indexes, kept jobs); its counts stay")
    .argument('<id>', 'campaign ID')
    .action(async (id: string) => {
      const { runPurge } = await import('../../app/campaign-purge.js');
      console.log(purgeText(await withContext((context) => runPurge(context, id))));
    });
}

/** What `campaign purge` prints. */
function purgeText(summary: PurgeSummary): string {
  const jobs = summary.jobs > 0 ? `, ${summary.jobs} finished jobs removed from the queue` : '';
  if (summary.alreadyPurged)
    return `Campaign ${summary.id} was already purged at ${new Date(summary.purgedAt).toISOString()}${jobs}; its counts are kept.`;
  return (
    `Campaign ${summary.id} purged: ${summary.rows} rows (phone numbers, values, details) and ` +
    `${summary.wamids} message-ID index entries deleted${jobs}; its counts are kept.`
  );
}
