import type { Command } from 'commander';
import { phoneNumberIdList } from '../option-values.js';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  program
    .command('worker')
    .description(
      'run the rate-limited send workers until SIGTERM: one per phone number with campaigns (new numbers ' +
        'are picked up as their first campaign arrives), each at SEND_RATES or SEND_RATE',
    )
    .option('--phone-number-id <ids>', 'serve only these phone-number IDs, comma-separated (default: every number that has campaigns)')
    .action(async (o: { phoneNumberId?: string }) => {
      const phoneNumberIds = o.phoneNumberId === undefined ? undefined : phoneNumberIdList(o.phoneNumberId);
      const { runWorkerUntilSignal } = await import('../../../workers/worker.js');
      await withContext((context) => runWorkerUntilSignal(context, { phoneNumberIds }), ['WHATSAPP_ACCESS_TOKEN']);
    });
}
