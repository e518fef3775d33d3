import type { RowStatus } from '../campaign.js';

/** At most this many rows are read for one campaign's errors by code (the dashboard says when it stopped there). */
export const ERROR_SCAN_CAP = 100_000;

/** The row statuses that carry a code: Meta's (or a transport failure's) for failed/unknown, the producer's reason for rejected/skipped. */
export const CODED_STATUSES = ['failed', 'unknown', 'rejected', 'skipped'] as const satisfies readonly RowStatus[];
export type CodedStatus = (typeof CODED_STATUSES)[number];

export interface CodeCount {
  status: CodedStatus;
  /** '(none)' for a coded row without a code. */
  code: string;
  rows: number;
  /** The detail of one such row (Meta's message, the rejection reason), as stored. */
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

/**
 * The dashboard's errors by code. The ledger keeps counts by status only (its scripts move
 * them with each row), so this reads the rows themselves, a page at a time so the store is
 * never blocked, and stops after `cap` rows: the caller caches it and keeps it off any hot path.
 */
export interface ErrorCodeLedger {
  errorCodes(campaignId: string, cap?: number): Promise<ErrorCodeCount>;
}
