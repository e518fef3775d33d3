import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  const optouts = program
    .command('optouts')
    .description(
      'the recipients who opted out of marketing from a business portfolio (MARKETING campaigns of its numbers skip them as OPTED_OUT)',
    );
  optouts
    .command('list')
    .description('every opt-out of the portfolio, with when and how it was learnt')
    .option('--phone-number-id <id>', 'a number of the portfolio (default WHATSAPP_PHONE_NUMBER_ID)')
    .option('--portfolio <name>', "the portfolio, as PORTFOLIOS names it (default: the number's)")
    .option('--json', 'print JSON')
    .action(async (o: { phoneNumberId?: string; portfolio?: string; json?: boolean }) => {
      const { listOptOuts } = await import('../../app/opt-outs.js');
      const { optOutJson } = await import('../../app/views/opt-out-view.js');
      const { optOutsText } = await import('../run/optouts.js');
      const list = await withContext((context) => listOptOuts(context, o));
      console.log(o.json === true ? JSON.stringify(list.optOuts.map(optOutJson)) : optOutsText(list));
    });
  optouts
    .command('add')
    .description('opt a recipient out of marketing on every number of the portfolio')
    .argument('<phone>', 'the recipient, +<country><number>')
    .option('--phone-number-id <id>', 'a number of the portfolio (default WHATSAPP_PHONE_NUMBER_ID)')
    .option('--portfolio <name>', "the portfolio, as PORTFOLIOS names it (default: the number's)")
    .action(async (phone: string, o: { phoneNumberId?: string; portfolio?: string }) => {
      const { addOptOut } = await import('../run/optouts.js');
      console.log(await withContext((context) => addOptOut(context, phone, o)));
    });
  optouts
    .command('remove')
    .description('take a recipient off the opt-outs (only if they asked for marketing again)')
    .argument('<phone>', 'the recipient, +<country><number>')
    .option('--phone-number-id <id>', 'a number of the portfolio (default WHATSAPP_PHONE_NUMBER_ID)')
    .option('--portfolio <name>', "the portfolio, as PORTFOLIOS names it (default: the number's)")
    .action(async (phone: string, o: { phoneNumberId?: string; portfolio?: string }) => {
      const { removeOptOut } = await import('../run/optouts.js');
      console.log(await withContext((context) => removeOptOut(context, phone, o)));
    });
}
