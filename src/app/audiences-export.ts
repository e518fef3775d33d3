import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import type { OptOutSource } from '../campaigns/ledger.js';
import { optOutOrigin } from '../campaigns/ingest/opted-out.js';
import { spreadsheetSafe } from '../campaigns/report/spreadsheet-safe.js';
import type { ConsentEntry } from '../consent/consent-entry.js';
import { consentStore, type AudiencesContext } from './audiences-context.js';
import { contactPages, openAudience } from './audiences-read.js';
import type { OptOutsOptions } from './opt-outs.js';

/**
 * `campaign audiences export NAME`: the audience as CSV, `phone`, its columns, then what the
 * product knows of each contact: `opted_out` (when, and how it was learnt), `user_id` (the
 * business-scoped user ID webhooks taught) and `consent` (the newest consent entry: its kind
 * and time). Every cell is made spreadsheet-safe, as the reports are: a cell of an imported
 * file may hold a formula. Returns the contacts written.
 */
export async function exportAudience(
  context: AudiencesContext,
  target: OptOutsOptions,
  name: string,
  out: NodeJS.WritableStream,
): Promise<number> {
  const { store, portfolio, audience } = await openAudience(context, target, name);
  const optOuts = await context.ledger.optOutsOfPortfolio(portfolio);
  const consent = consentStore(context);
  const csv = stringify();
  csv.pipe(out, { end: false });
  const write = async (cells: readonly string[]): Promise<void> => {
    if (!csv.write(cells.map(spreadsheetSafe))) await once(csv, 'drain');
  };
  await write(['phone', ...audience.columns, 'opted_out', 'user_id', 'consent']);
  let written = 0;
  for await (const page of contactPages(store, portfolio, audience)) {
    const phones = page.map((c) => c.phone);
    // One history read per contact, all of a page at once: they go down the one connection as a pipeline.
    const [userIds, histories] = await Promise.all([
      store.userIds(portfolio, phones),
      Promise.all(phones.map((phone) => consent.history(portfolio, phone))),
    ]);
    for (const [i, contact] of page.entries()) {
      await write([
        contact.phone,
        ...audience.columns.map((column) => contact.attributes[column] ?? ''),
        optedOutCell(optOuts.get(contact.phone)),
        userIds[i] ?? '',
        consentCell(histories[i]?.[0]),
      ]);
      written++;
    }
  }
  csv.end();
  await once(csv, 'end');
  return written;
}

/** "2026-03-01T10:00:00.000Z keyword": when the opt-out was learnt and how (131050, keyword, user_preferences, operator). */
function optedOutCell(source: OptOutSource | undefined): string {
  if (source === undefined) return '';
  return `${source.at === 0 ? '?' : new Date(source.at).toISOString()} ${optOutOrigin(source)}`;
}

/** "opt-in 2026-03-01T10:00:00.000Z": the newest consent entry. */
function consentCell(entry: ConsentEntry | undefined): string {
  return entry === undefined ? '' : `${entry.kind} ${new Date(entry.at).toISOString()}`;
}
