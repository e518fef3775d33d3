import { AppError } from '../../errors/app-error.js';
import type { CsvRecord } from '../../csv/csv-records.js';
import type { RowStatus } from '../campaign.js';
import type { ReportLedger } from '../ledger.js';
import { boundedBadValue } from './bad-value.js';
import type { PhoneRowIndex } from './phone-row-index.js';

/**
 * The rows of a continued campaign that this run leaves as they are: rows the campaign has
 * queued, sent, or otherwise given to a worker. Only rejected and skipped rows (never sent)
 * take the file's new verdict.
 */
export class KeptRows {
  readonly #bits: Uint8Array;
  readonly byStatus: Partial<Record<RowStatus, number>> = {};
  #count = 0;

  constructor(rows: number) {
    this.#bits = new Uint8Array(Math.ceil((rows + 1) / 8));
  }

  get count(): number {
    return this.#count;
  }

  has(row: number): boolean {
    return ((this.#bits[row >> 3] ?? 0) & (1 << (row & 7))) !== 0;
  }

  add(row: number, status: RowStatus): void {
    if (row >> 3 >= this.#bits.length || this.has(row)) return;
    this.#bits[row >> 3] = (this.#bits[row >> 3] ?? 0) | (1 << (row & 7));
    this.byStatus[status] = (this.byStatus[status] ?? 0) + 1;
    this.#count++;
  }
}

/** Statuses a new file may change: the row was never sent, so a fixed file may replace it. */
const REOPENABLE: ReadonlySet<RowStatus> = new Set(['rejected', 'skipped']);

export interface ContinuedFileInput {
  ledger: Pick<ReportLedger, 'rows'>;
  campaignId: string;
  /** Rows the campaign has (its `total`). */
  campaignRows: number;
  file: string;
  /** The file's records, read afresh from its first data row. */
  records: AsyncIterable<CsvRecord>;
  /** The recipient a record names (E.164 when it is a number), as the row check reads it; '' when it names none. */
  recipientOf: (fields: readonly string[]) => string;
  /** Filled with the recipients of the kept rows: a new row to one of them is a DUPLICATE_PHONE. */
  recipients: PhoneRowIndex;
  signal?: AbortSignal | undefined;
  /** What the option that continues a campaign is called where the request came from (`--campaign`, `campaign`). */
  campaignOption: string;
}

/**
 * `send FILE --campaign ID` into a campaign that has rows: the file must be the campaign's
 * file, continued or fixed. Rows are matched by row number, so every row the campaign has
 * given to a worker must name the same recipient at the same row number; otherwise another
 * recipient would silently take its place (and never be sent) while the campaign's record
 * of it stayed. Read before anything is written: a mismatch refuses the whole run with
 * CAMPAIGN_FILE_MISMATCH naming the first row that differs.
 */
export async function checkContinuedFile(input: ContinuedFileInput): Promise<KeptRows> {
  const kept = new KeptRows(input.campaignRows);
  const records = input.records[Symbol.asyncIterator]();
  let row = 0;
  let record: CsvRecord | undefined;
  try {
    for await (const page of input.ledger.rows(input.campaignId)) {
      for (const stored of page) {
        if (REOPENABLE.has(stored.status)) continue;
        while (row < stored.row) {
          const next = await records.next();
          if (next.done === true) return kept;
          record = next.value;
          row++;
        }
        if (input.signal?.aborted === true) {
          throw new AppError(
            'INGEST_INTERRUPTED',
            `stopped while ${input.file} was checked against campaign ${input.campaignId}, at row ${row}; nothing was written`,
          );
        }
        const now = record === undefined || record.kind === 'malformed' ? '' : input.recipientOf(record.fields);
        if (now !== stored.phone) throw mismatch(input, row, record?.line ?? 0, stored.phone, stored.status, now);
        kept.add(row, stored.status);
        input.recipients.setIfAbsent(now, row);
      }
    }
    return kept;
  } finally {
    await records.return?.();
  }
}

function mismatch(input: ContinuedFileInput, row: number, line: number, was: string, status: RowStatus, now: string): AppError {
  // A cell from the file is quoted, control characters escaped: it may hold anything.
  const found =
    now === ''
      ? 'no recipient (the row cannot be read, or its phone cell is empty)'
      : /^\+\d{1,15}$/.test(now)
        ? now
        : `${JSON.stringify(boundedBadValue(now))}, not a valid number`;
  return new AppError(
    'CAMPAIGN_FILE_MISMATCH',
    `${input.file} row ${row} (line ${line}) is not the campaign's row ${row}: campaign ${input.campaignId} ` +
      `has it for ${was} (${status}), the file now names ${found}. ` +
      'A continued send must keep every row the campaign queued or sent at its row number (only rejected ' +
      'and skipped rows may change, and new rows go after the last one); ' +
      `restore the file, or send it as a new campaign without ${input.campaignOption}. Nothing was written.`,
  );
}
