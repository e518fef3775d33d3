import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('pause')
    .description('stop feeding a campaign (sends in flight finish; jobs already fed park at once); `resume` continues it')
    .argument('<id>', 'campaign ID')
    .option('--reason <text>', 'shown by `campaign status`', 'paused by the operator')
    .action(async (id: string, o: { reason: string }) => {
      const { cliControl } = await import('../run/controls.js');
      const result = await withContext((context) => cliControl(context, 'pause', id, { reason: o.reason }));
      const head = result.alreadyPaused ? `Campaign ${id} was already paused` : `Campaign ${id} paused: no new send starts`;
      console.log(`${head}; \`campaign resume ${id}\` continues it`);
    });
}
