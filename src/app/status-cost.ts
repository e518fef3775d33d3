import type { CampaignStatus } from '../campaigns/campaign.js';
import type { RedisLedger } from '../redis/ledger/redis-ledger.js';
import type { RateCard } from '../pricing/rate-card.js';
import { campaignCost, type CampaignCost } from '../pricing/recorded-cost.js';

/** `status`'s `cost`: the campaign's recorded estimate and billable rows, priced by the card at its start. */
export async function statusCost(
  ledger: Pick<RedisLedger, 'recordedCosts'>,
  card: RateCard,
  status: CampaignStatus,
): Promise<CampaignCost> {
  return campaignCost(card, await ledger.recordedCosts(status.id), status.startedAt ?? status.createdAt);
}
