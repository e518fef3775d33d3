import type { Command } from 'commander';
import { withContext } from '../with-context.js';

export function register(program: Command): void {
  const optouts = program
    .command('optouts')
    .description('the recipients who opted out of marketing on a number (MARKETING campaigns skip them as OPTED_OUT)');
  optouts
    .command('list')
    .description('every opt-out of the number, with when and how it was learnt')
    .option('--phone-number-id <id>', 'the number (default WHATSAPP_PHONE_NUMBER_ID)')
    .option('--json', 'print JSON')
    .action(async (o: { phoneNumberId?: string; json?: boolean }) => {
      const { listOptOuts, optOutsText } = await import('../run/optouts.js');
      const list = await withContext((context) => listOptOuts(context, o));
      console.log(
        o.json === true
          ? JSON.stringify(
              list.optOuts.map((x) => ({
                phone: x.phone,
                at: new Date(x.source.at).toISOString(),
                via: x.source.via ?? '131050',
                campaignId: x.source.campaignId || null,
                row: x.source.row || null,
              })),
            )
          : optOutsText(list),
      );
    });
  optouts
    .command('add')
    .description('opt a recipient out of marketing on the number')
    .argument('<phone>', 'the recipient, +<country><number>')
    .option('--phone-number-id <id>', 'the number (default WHATSAPP_PHONE_NUMBER_ID)')
    .action(async (phone: string, o: { phoneNumberId?: string }) => {
      const { addOptOut } = await import('../run/optouts.js');
      console.log(await withContext((context) => addOptOut(context, phone, o)));
    });
  optouts
    .command('remove')
    .description('take a recipient off the opt-outs (only if they asked for marketing again)')
    .argument('<phone>', 'the recipient, +<country><number>')
    .option('--phone-number-id <id>', 'the number (default WHATSAPP_PHONE_NUMBER_ID)')
    .action(async (phone: string, o: { phoneNumberId?: string }) => {
      const { removeOptOut } = await import('../run/optouts.js');
      console.log(await withContext((context) => removeOptOut(context, phone, o)));
    });
}
