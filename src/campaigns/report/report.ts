import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { Readable, type Writable } from 'node:stream';
import { pipeline } from 'node:stream/promises';
import { stringify, type Stringifier } from 'csv-stringify';
import { AppError } from '../../errors/app-error.js';
import { makeDirectory } from '../../files/make-directory.js';
import { replaceFile } from '../../files/replace-file.js';
import type { RowRecord } from '../campaign.js';
import type { ReportLedger } from '../ledger.js';
import { spreadsheetSafe } from './spreadsheet-safe.js';

/**
 * `user_id`: the recipient's business-scoped user ID as the portfolio's user links know it
 * now (learnt from status webhooks and messages; the newest for that phone), empty while none
 * is known; `delivered_at`, `read_at`: Meta's timestamps from status webhooks (ISO 8601), empty
 * until one arrives; `reply_payload`: the payload of the quick-reply button the recipient
 * tapped; `flow_response`: their answer to the WhatsApp Flow the message opened, the JSON text
 * of Meta's `response_json` (at most 4 KB, src/webhooks/flow-response.ts); `pricing_category`:
 * the category of Meta's `pricing` on its statuses (marketing, utility…), empty until one comes
 * (`status --json` counts the billable ones); `clicked_at`, `clicks`: when the row's tracked link (`send --track-clicks`) was
 * first clicked, by the ledger's clock, and how often; empty until it is (and in a campaign that does not track clicks).
 * Operators' scripts read these names.
 */
export const REPORT_COLUMNS = [
  'row',
  'phone',
  'user_id',
  'status',
  'message_id',
  'error_code',
  'error_detail',
  'attempts',
  'delivered_at',
  'read_at',
  'reply_payload',
  'flow_response',
  'pricing_category',
  'clicked_at',
  'clicks',
] as const;

const iso = (ms: number | undefined): string => (ms === undefined ? '' : new Date(ms).toISOString());

/**
 * A row's line of the report (`campaign report`, and the campaigns page's download): text
 * cells spreadsheet-safe, since a phone or detail cell may hold what a hostile file put there
 * (`=HYPERLINK(…)`); times ISO 8601.
 */
export function reportLine(r: RowRecord, userId = ''): (string | number)[] {
  return [
    r.row,
    spreadsheetSafe(r.phone),
    spreadsheetSafe(userId),
    r.status,
    r.wamid ?? '',
    spreadsheetSafe(r.errorCode ?? ''),
    spreadsheetSafe(r.errorDetail ?? ''),
    r.attempts,
    iso(r.deliveredAt),
    iso(r.readAt),
    spreadsheetSafe(r.reply ?? ''),
    spreadsheetSafe(r.flowResponse ?? ''),
    spreadsheetSafe(r.pricing?.category ?? ''),
    iso(r.clickedAt),
    r.clicks ?? '',
  ];
}

/** The user IDs of these phones in the campaign's portfolio (src/redis/webhooks/redis-user-links.ts), undefined where none is known. */
export type UserIdsOf = (phones: readonly string[]) => Promise<(string | undefined)[]>;

/** Every row's line, in row order, read from the ledger a page at a time as the consumer asks for them. */
export async function* reportLines(
  ledger: Pick<ReportLedger, 'rows'>,
  campaignId: string,
  userIds?: UserIdsOf,
): AsyncGenerator<(string | number)[]> {
  for await (const page of ledger.rows(campaignId)) {
    // One lookup per page of rows, not per row.
    const ids = userIds === undefined ? [] : await userIds(page.map((r) => r.phone));
    for (const [i, r] of page.entries()) yield reportLine(r, ids[i] ?? '');
  }
}

/** Lines in, CSV text out: the header first, then one record per line. */
export function reportCsv(): Stringifier {
  return stringify({ header: true, columns: [...REPORT_COLUMNS] });
}

export interface ReportOptions {
  /** Aborted (Ctrl-C): the writing stops, and the rejection is the AbortError. */
  signal?: AbortSignal | undefined;
  /** The `user_id` column's source; without it the column is empty. */
  userIds?: UserIdsOf | undefined;
}

/**
 * Writes one line per CSV row, in row order, streaming page by page (any campaign size, flat
 * memory: stream.pipeline carries the backpressure and its error listeners once for the
 * whole file). The report goes to a temporary file renamed over `path` only when complete, so
 * a failure or a stop leaves the report there before as it was. A path that cannot be written
 * is OUTPUT_UNWRITABLE; a failed read of the ledger is rethrown as it is.
 */
export async function writeReport(
  ledger: Pick<ReportLedger, 'rows'>,
  campaignId: string,
  path: string,
  options: ReportOptions = {},
): Promise<number> {
  await checkWritableFile(path);
  const source = countedLines(ledger, campaignId, options.userIds);
  try {
    await replaceFile(path, (temporary) =>
      pipeline(Readable.from(source.lines), reportCsv(), createWriteStream(temporary, { flags: 'wx' }), { signal: options.signal }),
    );
  } catch (error) {
    throw source.isOwnFailure(error) ? error : unwritable(path, (error as Error).message, error);
  }
  return source.count();
}

/**
 * `report --out -`: the CSV to `out` (stdout), which stays open. A reader that goes away
 * (`| head`) ends the writing quietly: it has what it asked for.
 */
export async function writeReportTo(
  ledger: Pick<ReportLedger, 'rows'>,
  campaignId: string,
  out: Writable,
  options: ReportOptions = {},
): Promise<number> {
  const source = countedLines(ledger, campaignId, options.userIds);
  try {
    await pipeline(Readable.from(source.lines), reportCsv(), out, { end: false, signal: options.signal });
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'EPIPE') return source.count();
    if (source.isOwnFailure(error)) throw error;
    throw new AppError(
      'OUTPUT_UNWRITABLE',
      `stdout cannot be written (${(error as Error).message}); write the report to a file with --out FILE`,
      { cause: error },
    );
  }
  return source.count();
}

/** The lines, counted, and which failures are not the output's: the ledger's own, or a stop. */
function countedLines(ledger: Pick<ReportLedger, 'rows'>, campaignId: string, userIds: UserIdsOf | undefined) {
  let count = 0;
  let readFailure: unknown;
  async function* lines(): AsyncGenerator<(string | number)[]> {
    try {
      for await (const line of reportLines(ledger, campaignId, userIds)) {
        count++;
        yield line;
      }
    } catch (error) {
      readFailure = error;
      throw error;
    }
  }
  return {
    lines: lines(),
    count: () => count,
    isOwnFailure: (error: unknown) =>
      (readFailure !== undefined && error === readFailure) || (error instanceof Error && error.name === 'AbortError'),
  };
}

async function checkWritableFile(path: string): Promise<void> {
  const existing = await stat(path).catch(() => undefined);
  if (existing?.isDirectory() === true) {
    throw new AppError('OUTPUT_UNWRITABLE', `${path} is a directory; give a file path, e.g. --out ${path.replace(/\/+$/, '')}/report.csv`);
  }
  try {
    await makeDirectory(dirname(path));
  } catch (error) {
    throw unwritable(path, (error as Error).message, error);
  }
}

function unwritable(path: string, reason: string, cause: unknown): AppError {
  return new AppError('OUTPUT_UNWRITABLE', `${path} cannot be written (${reason}); choose a writable place with --out or REPORTS_DIR`, {
    cause,
  });
}
