import type { CampaignStatus } from '../campaign.js';

/** A campaign as the metrics read it (never its rows): status and counts, number, whether it has a send window (`--window`). */
export interface CampaignCounters {
  status: CampaignStatus;
  phoneNumberId: string;
  windowed: boolean;
}

/** The metrics' read of every campaign under the prefix at once, in order of creation (src/redis/ledger/ledger-reads.ts). */
export interface CampaignCountersReader {
  campaignCounters(): Promise<CampaignCounters[]>;
}
