import { createWriteStream } from 'node:fs';
import { mkdir } from 'node:fs/promises';
import { dirname } from 'node:path';
import { once } from 'node:events';
import { stringify } from 'csv-stringify';
import type { CampaignLedger } from './ledger.js';

export const REPORT_COLUMNS = ['row', 'phone', 'status', 'message_id', 'error_code', 'error_detail', 'attempts'] as const;

/** Writes one line per CSV row, in row order, streaming page by page (any campaign size). */
export async function writeReport(ledger: CampaignLedger, campaignId: string, path: string): Promise<number> {
  await mkdir(dirname(path), { recursive: true });
  const out = createWriteStream(path);
  const csv = stringify({ header: true, columns: [...REPORT_COLUMNS] });
  csv.pipe(out);
  let lines = 0;
  for await (const page of ledger.rows(campaignId)) {
    for (const r of page) {
      const ok = csv.write([r.row, r.phone, r.status, r.wamid ?? '', r.errorCode ?? '', r.errorDetail ?? '', r.attempts]);
      lines++;
      if (!ok) await once(csv, 'drain');
    }
  }
  csv.end();
  await once(out, 'finish');
  return lines;
}
