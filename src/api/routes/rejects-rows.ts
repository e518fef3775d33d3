import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import type { z } from 'zod';
import type { rejectsJsonSchema } from '../schemas/directory-schemas.js';

type RejectsJson = z.infer<typeof rejectsJsonSchema>;

/**
 * The first `limit` rows of a rejects file (`row,phone,reason` with reason `CODE: detail`,
 * as RejectsFile writes it), read only as far as needed: a rejects file may be as long as
 * the campaign's file.
 */
export async function firstRejects(path: string, limit: number): Promise<RejectsJson> {
  const file = createReadStream(path);
  const parser = file.pipe(parse({ columns: true, to: limit + 1, relax_column_count: true }));
  const rows: RejectsJson['rows'] = [];
  try {
    for await (const record of parser as AsyncIterable<Record<string, string | undefined>>) {
      if (rows.length === limit) return { rows, truncated: true };
      rows.push(rejectOf(record));
    }
    return { rows, truncated: false };
  } finally {
    // Stopped early: the file is closed now, not once it would have been read to the end.
    file.destroy();
    parser.destroy();
  }
}

function rejectOf(record: Record<string, string | undefined>): RejectsJson['rows'][number] {
  const text = record.reason ?? '';
  const colon = text.indexOf(': ');
  return {
    row: Number(record.row),
    phone: record.phone ?? '',
    reason: colon < 0 ? text : text.slice(0, colon),
    detail: colon < 0 ? '' : text.slice(colon + 2),
  };
}
