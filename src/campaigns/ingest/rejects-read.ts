import { createReadStream } from 'node:fs';
import { parse } from 'csv-parse';
import { REJECTION_REASONS, type RejectionReason } from '../rejection-reasons.js';

/** A refused row read back from a rejects file (RejectsFile: `row,phone,reason`, the reason cell `REASON: detail`). */
export interface RejectedRow {
  row: number;
  phone?: string;
  reason: RejectionReason;
  /** The column the detail names, when it names one (`line 6: column "order_id" …`). */
  column?: string;
  detail: string;
}

/** The first `limit` rows of a rejects file, undone of its spreadsheet-safe quoting; [] without a file. */
export async function readRejects(path: string | undefined, limit: number): Promise<RejectedRow[]> {
  if (path === undefined || limit <= 0) return [];
  const rows: RejectedRow[] = [];
  const input = createReadStream(path);
  const records = input.pipe(parse({ columns: true, relax_column_count: true }));
  try {
    for await (const record of records as AsyncIterable<Record<string, string | undefined>>) {
      const read = rejectedRowOf(record);
      if (read !== undefined) rows.push(read);
      if (rows.length >= limit) break;
    }
  } finally {
    input.destroy();
  }
  return rows;
}

function rejectedRowOf(record: Record<string, string | undefined>): RejectedRow | undefined {
  const cell = unsafe(record.reason ?? '');
  const colon = cell.indexOf(': ');
  const reason = colon < 0 ? cell : cell.slice(0, colon);
  if (!Object.hasOwn(REJECTION_REASONS, reason)) return undefined;
  const detail = colon < 0 ? '' : cell.slice(colon + 2);
  const phone = unsafe(record.phone ?? '');
  const column = columnOfDetail(detail);
  return {
    row: Number(record.row),
    ...(phone === '' ? {} : { phone }),
    reason: reason as RejectionReason,
    ...(column === undefined ? {} : { column }),
    detail,
  };
}

/** spreadsheetSafe's leading `'` taken off again: the API's reader wants the value as it was. */
function unsafe(cell: string): string {
  return /^'[=+\-@\t\r]/.test(cell) ? cell.slice(1) : cell;
}

/** The column a refusal's detail names (`line 6: column "order_id" …`), when it names one. */
export function columnOfDetail(detail: string): string | undefined {
  return /^(?:line \d+: )?column "([^"]*)"/.exec(detail)?.[1];
}
