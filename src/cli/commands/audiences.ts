import type { Command } from 'commander';
import { withContext } from '../with-context.js';

/** `--portfolio | --phone-number-id`, as `campaign optouts` names a portfolio. */
interface TargetFlags {
  phoneNumberId?: string | undefined;
  portfolio?: string | undefined;
}

function withTarget(command: Command): Command {
  return command
    .option('--portfolio <name>', "the business portfolio, as PORTFOLIOS names it (default: WHATSAPP_PHONE_NUMBER_ID's)")
    .option('--phone-number-id <id>', 'a number of the portfolio (default WHATSAPP_PHONE_NUMBER_ID)');
}

const targetOf = (o: TargetFlags): TargetFlags => ({ portfolio: o.portfolio, phoneNumberId: o.phoneNumberId });

export function register(program: Command): void {
  const audiences = program
    .command('audiences')
    .description("a business portfolio's audiences: contact lists with attributes, kept between campaigns (send --audience NAME)");
  withTarget(
    audiences
      .command('import')
      .description('add a CSV file to an audience (created if new): its contacts are added or updated, other columns kept')
      .argument('<name>', 'the audience, e.g. weekly-offer (letters, digits, _ - .)')
      .argument('<file>', 'CSV file with a header row and a phone column')
      .option('--replace', 'the audience becomes exactly this file: contacts not in it are removed')
      .option('--phone-column <column>', 'column holding the phone number', 'phone')
      .option('--default-country <CC>', 'ISO country for numbers written without a country code, e.g. DE')
      .option('--delimiter <char>', 'field delimiter (default: detected from the header line)')
      .option('--consent-column <column>', 'a non-empty cell records an opt-in (its time: the cell if it is an ISO date/time)'),
  )
    .option('--json', 'print a JSON summary')
    .action(async (name: string, file: string, o: ImportFlags) => {
      const { runImport } = await import('../run/audiences.js');
      console.log(await withContext((context) => runImport(context, name, file, { ...o, target: targetOf(o) })));
    });
  withTarget(audiences.command('list').description("the portfolio's audiences, with their contacts and columns"))
    .option('--json', 'print JSON')
    .action(async (o: TargetFlags & { json?: boolean }) => {
      const { listAudiences } = await import('../../app/audiences.js');
      const { audiencesText } = await import('../run/audiences.js');
      const list = await withContext((context) => listAudiences(context, targetOf(o)));
      console.log(o.json === true ? JSON.stringify(list) : audiencesText(list));
    });
  withTarget(audiences.command('show').description('an audience: its columns and how many contacts fill each, opt-outs, consent, user IDs'))
    .argument('<name>', 'the audience')
    .option('--json', 'print JSON')
    .action(async (name: string, o: TargetFlags & { json?: boolean }) => {
      const { showAudience } = await import('../../app/audiences.js');
      const { audienceText } = await import('../run/audiences.js');
      const detail = await withContext((context) => showAudience(context, targetOf(o), name));
      console.log(o.json === true ? JSON.stringify(detail) : audienceText(detail));
    });
  withTarget(audiences.command('export').description('the audience as CSV: phone, its columns, opted_out, user_id, consent'))
    .argument('<name>', 'the audience')
    .option('--output <file>', 'write to this file (default: stdout)')
    .action(async (name: string, o: TargetFlags & { output?: string }) => {
      const { runExport } = await import('../run/audiences.js');
      const line = await withContext((context) => runExport(context, name, targetOf(o), o.output));
      if (line !== undefined) console.error(line);
    });
  withTarget(audiences.command('remove').description('remove contacts from an audience'))
    .argument('<name>', 'the audience')
    .argument('<phones...>', 'the contacts, +<country><number>')
    .action(async (name: string, phones: string[], o: TargetFlags) => {
      const { removeContacts } = await import('../../app/audiences.js');
      const { removedText } = await import('../run/audiences.js');
      console.log(removedText(name, await withContext((context) => removeContacts(context, targetOf(o), name, phones))));
    });
  withTarget(audiences.command('delete').description('delete an audience and its contacts'))
    .argument('<name>', 'the audience')
    .action(async (name: string, o: TargetFlags) => {
      const { runDelete } = await import('../run/audiences.js');
      console.log(await withContext((context) => runDelete(context, name, targetOf(o))));
    });
}

export interface ImportFlags extends TargetFlags {
  replace?: boolean;
  phoneColumn?: string;
  defaultCountry?: string;
  delimiter?: string;
  consentColumn?: string;
  json?: boolean;
}
