import type { Command } from 'commander';
import { printable } from '../../text/operator-text.js';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('cancel')
    .description('stop a campaign for good: rows not yet sent become cancelled')
    .argument('<id>', 'campaign ID')
    .action(async (id: string) => {
      const { cliControl } = await import('../run/controls.js');
      const result = await withContext((context) => cliControl(context, 'cancel', id, {}));
      if (result.alreadyCancelled) {
        const why = result.reason === undefined ? '' : ` (${printable(result.reason)})`;
        const ended = result.finishedAt === undefined ? '' : `; it ended at ${new Date(result.finishedAt).toISOString()}`;
        console.log(`Campaign ${id} was already cancelled${why}${ended}; nothing changed`);
      } else {
        console.log(
          `Campaign ${id} cancelled: ${result.cancelled} rows not yet fed cancelled; rows already fed are cancelled as workers reach them`,
        );
      }
    });
}
