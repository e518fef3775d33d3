import type { RowStatus } from '../campaign.js';

/** The row labels a campaign is counted by: every row status, and Meta's `delivered` and `read` (a read row counts in both). */
export type CounterLabel = RowStatus | 'delivered' | 'read';

/**
 * What the ledger counts for a campaign as its rows move (never its rows themselves): so a
 * scrape costs the same at 10 rows or 1M.
 */
export interface CampaignCounters {
  id: string;
  phoneNumberId: string;
  createdAt: number;
  total: number;
  rows: Record<CounterLabel, number>;
  startedAt: number | undefined;
  finishedAt: number | undefined;
  startsAt: number | undefined;
  expiresAt: number | undefined;
  paused: boolean;
  cancelled: boolean;
  /** It has a send window (`--window`): its rows wait in lanes. */
  windowed: boolean;
}

/** The metrics' read of every campaign's counters (src/redis/ledger-counters.ts). */
export interface CampaignCountersReader {
  /** Every campaign under the prefix that has its counters, in the order campaigns were created. */
  campaignCounters(): Promise<CampaignCounters[]>;
}
