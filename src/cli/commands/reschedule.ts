import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('reschedule')
    .description('move the start of a campaign that has not started yet')
    .argument('<id>', 'campaign ID')
    .requiredOption('--at <time>', 'the new start (ISO 8601 with offset, e.g. 2026-12-01T09:00:00+01:00)')
    .action(async (id: string, o: { at: string }) => {
      const { cliControl } = await import('../run/controls.js');
      const { parseStart } = await import('../../campaigns/spec/time-options.js');
      const startsAt = parseStart('--at', o.at, Date.now());
      await withContext((context) => cliControl(context, 'reschedule', id, { startsAt }));
      console.log(`Campaign ${id} now starts at ${new Date(startsAt).toISOString()}`);
    });
}
