import type { CampaignStatus } from '../campaign.js';

/** A campaign as the metrics read it: its status and counts (never its rows), its number, whether it has a send window. */
export interface CampaignCounters {
  status: CampaignStatus;
  phoneNumberId: string;
  /** It has a send window (`--window`): its rows wait in lanes. */
  windowed: boolean;
}

/** The metrics' read of every campaign at once (src/redis/ledger-counters.ts): a scrape costs the same at 10 rows or 1M. */
export interface CampaignCountersReader {
  /** Every campaign under the prefix, in the order campaigns were created. */
  campaignCounters(): Promise<CampaignCounters[]>;
}
