import type { Command } from 'commander';
import type { PurgeSummary } from '../../app/campaign-purge.js';
import type { AudiencePurge } from '../../app/audiences.js';
import { ArgumentError } from '../usage-errors.js';
import { withContext } from '../with-context.js';

interface PurgeFlags {
  audience?: string;
  portfolio?: string;
  phoneNumberId?: string;
}

export function register(program: Command): void {
  program
    .command('purge')
    .description(
      "delete a finished campaign's personal data (rows, values, indexes, kept jobs; its counts stay), or with --audience an audience's",
    )
    .argument('[id]', 'campaign ID')
    .option('--audience <name>', "purge this audience (its contacts and their attributes) instead of a campaign's data")
    .option('--portfolio <name>', "with --audience: the audience's portfolio (default: WHATSAPP_PHONE_NUMBER_ID's)")
    .option('--phone-number-id <id>', 'with --audience: a number of the portfolio (default WHATSAPP_PHONE_NUMBER_ID)')
    .action(async (id: string | undefined, o: PurgeFlags) => {
      if (o.audience !== undefined) {
        if (id !== undefined) throw new ArgumentError(`give a campaign ID or --audience, not both`, 'see campaign purge --help');
        const name = o.audience;
        const { purgeAudience } = await import('../../app/audiences.js');
        const target = { portfolio: o.portfolio, phoneNumberId: o.phoneNumberId };
        console.log(audiencePurgeText(await withContext((context) => purgeAudience(context, target, name))));
        return;
      }
      if (id === undefined) throw new ArgumentError("missing required argument 'id'", 'see campaign purge --help');
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

/** What `campaign purge --audience` prints. */
function audiencePurgeText(purge: AudiencePurge): string {
  return (
    `Audience ${purge.name} (portfolio ${purge.portfolio}) purged: ` +
    `${purge.contacts} contact${purge.contacts === 1 ? '' : 's'} and their attributes deleted; ` +
    `the portfolio's audience history records it.`
  );
}
