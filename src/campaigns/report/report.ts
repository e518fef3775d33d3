import { createWriteStream } from 'node:fs';
import { stat } from 'node:fs/promises';
import { dirname } from 'node:path';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import { AppError } from '../../errors/app-error.js';
import { makeDirectory } from '../../files/make-directory.js';
import type { RowRecord } from '../campaign.js';
import type { ReportLedger } from '../ledger.js';
import { spreadsheetSafe } from './spreadsheet-safe.js';

/**
 * `delivered_at`, `read_at`: Meta's timestamps from status webhooks (ISO 8601), empty until
 * one arrives; `reply`: the payload of the quick-reply button the recipient tapped.
 */
export const REPORT_COLUMNS = ['row', 'phone', 'status', 'message_id', 'error_code', 'error_detail', 'attempts', 'delivered_at', 'read_at', 'reply'] as const;

const iso = (ms: number | undefined): string => (ms === undefined ? '' : new Date(ms).toISOString());

/**
 * A row's line of the report (`campaign report`, and the campaigns page's download): text
 * cells spreadsheet-safe, since a phone or detail cell may hold what a hostile file put there
 * (`=HYPERLINK(…)`); times ISO 8601.
 */
export function reportLine(r: RowRecord): (string | number)[] {
  return [r.row, spreadsheetSafe(r.phone), r.status, r.wamid ?? '', spreadsheetSafe(r.errorCode ?? ''), spreadsheetSafe(r.errorDetail ?? ''), r.attempts, iso(r.deliveredAt), iso(r.readAt), spreadsheetSafe(r.reply ?? '')];
}

/**
 * Writes one line per CSV row (reportLine), in row order, streaming page by page (any
 * campaign size). A path that cannot be written is OUTPUT_UNWRITABLE, not a crash.
 */
export async function writeReport(ledger: ReportLedger, campaignId: string, path: string): Promise<number> {
  await checkWritableFile(path);
  const out = createWriteStream(path);
  let failure: Error | undefined;
  out.on('error', (error) => (failure ??= error));
  const csv = stringify({ header: true, columns: [...REPORT_COLUMNS] });
  csv.pipe(out);
  let lines = 0;
  for await (const page of ledger.rows(campaignId)) {
    if (failure !== undefined) break;
    for (const r of page) {
      const ok = csv.write(reportLine(r));
      lines++;
      if (!ok) await Promise.race([once(csv, 'drain'), once(out, 'error')]).catch(() => undefined);
    }
  }
  csv.end();
  if (failure === undefined && !out.writableFinished) await Promise.race([once(out, 'finish'), once(out, 'error')]).catch(() => undefined);
  if (failure !== undefined) throw unwritable(path, failure.message, failure);
  return lines;
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
  return new AppError('OUTPUT_UNWRITABLE', `${path} cannot be written (${reason}); choose a writable place with --out or REPORTS_DIR`, { cause });
}
