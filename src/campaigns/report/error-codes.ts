import type { RowStatus } from '../campaign.js';

/** At most this many rows are read for one campaign's errors by code (the dashboard says when it stopped there). */
export const ERROR_SCAN_CAP = 100_000;

/** The row statuses that carry a code: Meta's (or a transport failure's) for failed/unknown, the producer's reason for rejected/skipped. */
export const CODED_STATUSES = ['failed', 'unknown', 'rejected', 'skipped'] as const satisfies readonly RowStatus[];
export type CodedStatus = (typeof CODED_STATUSES)[number];

/** `code`: '(none)' for a coded row without one; `example`: the detail of one such row, as stored. */
export interface CodeCount {
  status: CodedStatus;
  code: string;
  rows: number;
  example: string;
}

/** A campaign's coded rows counted by status and error code. */
export interface ErrorCodeCount {
  /** Most rows first. */
  codes: CodeCount[];
  /** Rows read. */
  scanned: number;
  /** Every row was read; false when the count stopped at its cap (the counts are then a sample). */
  complete: boolean;
}

/** The dashboard's errors by code: read from the rows themselves (the ledger counts by status only), so cached by the caller. */
export interface ErrorCodeLedger {
  errorCodes(campaignId: string, cap?: number): Promise<ErrorCodeCount>;
}
