import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('purge')
    .description("delete a finished campaign's personal data (rows, values, indexes, kept jobs); its counts stay")
    .argument('<id>', 'campaign ID')
    .action(async (id: string) => {
      const { purgeText, runPurge } = await import('../../app/campaign-purge.js');
      console.log(purgeText(await withContext((context) => runPurge(context, id))));
    });
}
