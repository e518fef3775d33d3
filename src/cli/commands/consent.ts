import type { Command } from 'commander';
import { withContext } from '../with-context.js';

interface TargetOptions {
  phoneNumberId?: string;
  portfolio?: string;
  json?: boolean;
}

export function register(program: Command): void {
  const consent = program
    .command('consent')
    .description('who opted in to marketing from a business portfolio, when and how: the record Meta asks a sender to keep');
  consent
    .command('import')
    .description('record the opt-ins of a CSV file (columns phone, and optionally source and time) in the portfolio')
    .argument('<file>', 'CSV file with a header row: phone, source (how they opted in), time (ISO 8601, when)')
    .option('--source <text>', 'how the rows without a source opted in (default: "consent file <name of the file>")')
    .option('--default-country <cc>', 'ISO country of numbers written without a country code, e.g. DE')
    .option('--delimiter <char>', 'field delimiter: , ; | or tab (default: detected from the header)')
    .option('--phone-number-id <id>', 'a number of the portfolio (default WHATSAPP_PHONE_NUMBER_ID)')
    .option('--portfolio <name>', "the portfolio, as PORTFOLIOS names it (default: the number's)")
    .option('--json', 'print JSON')
    .action(async (file: string, o: TargetOptions & { source?: string; defaultCountry?: string; delimiter?: string }) => {
      const { runConsentImport } = await import('../run/consent.js');
      console.log(await withContext((context) => runConsentImport(context, file, o)));
    });
  consent
    .command('show')
    .description("a person's consent history in the portfolio, newest first: each opt-in and opt-out, when and how")
    .argument('<phone>', 'the recipient, +<country><number>')
    .option('--phone-number-id <id>', 'a number of the portfolio (default WHATSAPP_PHONE_NUMBER_ID)')
    .option('--portfolio <name>', "the portfolio, as PORTFOLIOS names it (default: the number's)")
    .option('--json', 'print JSON')
    .action(async (phone: string, o: TargetOptions) => {
      const { runConsentShow } = await import('../run/consent.js');
      console.log(await withContext((context) => runConsentShow(context, phone, o)));
    });
}
