import { createWriteStream } from 'node:fs';
import { join } from 'node:path';
import { finished } from 'node:stream/promises';
import { stringify } from 'csv-stringify';
import { checkWhereAttributes } from '../audiences/where/parse-where.js';
import type { WhereFilter } from '../audiences/where/where-filter.js';
import { AppError } from '../errors/app-error.js';
import { audienceColumns, audienceContacts, type AudienceContact, type AudiencesContext } from './audiences.js';

/** An audience's segment as a campaign's file: where it was written, its phone column, how many contacts. */
export interface AudienceFile {
  file: string;
  phoneColumn: string;
  contacts: number;
}

/**
 * `send --audience NAME [--where EXPR]`: the contacts of the audience (of the number's portfolio)
 * that the filter chooses, written to a CSV in `dir` with their attributes as columns, so the
 * campaign is made exactly as from a file: every check of a file send (opt-outs, the duplicate
 * window, send windows and zones, consent) applies unchanged. The cells are written as stored:
 * the file is read back by this product only, never opened in a spreadsheet.
 */
export async function writeAudienceFile(
  context: AudiencesContext,
  request: { name: string; where: WhereFilter | undefined; phoneNumberId: string; whereName: string; dir: string },
): Promise<AudienceFile> {
  const target = { phoneNumberId: request.phoneNumberId };
  const columns = await audienceColumns(context, target, request.name);
  // The contact's phone may be filtered on too, as `phone`, unless an attribute has that name.
  if (request.where !== undefined) checkWhereAttributes(request.where, [...new Set([...columns, 'phone'])], request.whereName);
  const phoneColumn = uniqueName('phone', columns);
  const file = join(request.dir, `${request.name}.csv`);
  const csv = stringify({ header: true, columns: [phoneColumn, ...columns] });
  const out = createWriteStream(file);
  csv.pipe(out);
  let contacts = 0;
  try {
    for await (const contact of audienceContacts(context, target, request.name)) {
      if (!chosen(request.where, contact)) continue;
      contacts++;
      const cells = [contact.phone, ...columns.map((column) => contact.attributes[column] ?? '')];
      if (!csv.write(cells)) await new Promise((resolve) => csv.once('drain', resolve));
    }
  } finally {
    csv.end();
    await finished(out);
  }
  if (contacts === 0) {
    const what = request.where === undefined ? `Audience ${request.name}` : `The segment ${request.where.text} of audience ${request.name}`;
    throw new AppError(
      'AUDIENCE_NO_CONTACTS',
      `${what} has no contact; no campaign was created (check the filter against \`campaign audiences export ${request.name}\`)`,
    );
  }
  return { file, phoneColumn, contacts };
}

/** Whether the filter chooses the contact; its phone reads as `phone` where no attribute has that name. */
function chosen(where: WhereFilter | undefined, contact: AudienceContact): boolean {
  if (where === undefined) return true;
  return where.matches(where.attributes.includes('phone') ? { phone: contact.phone, ...contact.attributes } : contact.attributes);
}

/** `name`, or `name_2`, `name_3`… where the audience already has a column of that name. */
function uniqueName(name: string, taken: readonly string[]): string {
  let candidate = name;
  for (let n = 2; taken.includes(candidate); n++) candidate = `${name}_${n}`;
  return candidate;
}
