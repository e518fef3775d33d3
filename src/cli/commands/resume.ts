import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('resume')
    .description('continue a paused campaign: its rows are fed again, the parked ones first')
    .argument('<id>', 'campaign ID')
    .action(async (id: string) => {
      const { cliControl } = await import('../run/controls.js');
      const result = await withContext((context) => cliControl(context, 'resume', id, {}));
      console.log(`Campaign ${id} ${result.wasPaused ? 'resumed: its rows are fed to the workers again' : 'was not paused'}`);
    });
}
