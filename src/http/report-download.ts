import { Readable, pipeline } from 'node:stream';
import { reportFileName } from '../campaigns/campaign-name.js';
import type { ReportLedger } from '../campaigns/ledger.js';
import { reportCsv, reportLines, type UserIdsOf } from '../campaigns/report/report.js';

/**
 * The report as a stream, read from the ledger page by page while the client takes it
 * (backpressure: a slow download holds the reading, it is never buffered whole). A client
 * that goes away ends the reading.
 */
export function reportStream(
  ledger: Pick<ReportLedger, 'rows'>,
  campaignId: string,
  onError: (error: Error) => void,
  userIds?: UserIdsOf,
): Readable {
  return pipeline(Readable.from(reportLines(ledger, campaignId, userIds)), reportCsv(), (error) => {
    if (error !== null && error !== undefined && error.code !== 'ERR_STREAM_PREMATURE_CLOSE') onError(error);
  });
}

/**
 * `attachment; filename="<id>-<slug of its name>.csv"`, the name `campaign report` saves it
 * under, with anything but letters, digits, _ and - in the ID replaced (the slug has none).
 */
export function reportDisposition(campaignId: string, name?: string): string {
  return `attachment; filename="${reportFileName(campaignId.replace(/[^A-Za-z0-9_-]/g, '_'), name)}"`;
}
