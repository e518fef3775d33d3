import type { CampaignDefinition, CampaignStatus } from '../campaigns/campaign.js';
import { campaignNotFound } from '../campaigns/campaign-not-found.js';
import { windowStatus, type WindowStatus } from '../campaigns/report/window-status.js';
import { loadRateCard } from '../pricing/rate-card.js';
import type { CampaignCost } from '../pricing/recorded-cost.js';
import type { AppContext } from './app-context.js';
import { statusCost } from './status-cost.js';
import { statusJson, type StatusView } from './views/status-view.js';

/** What `campaign status` shows of a campaign: its state and counts, its send window now, and its cost. */
export interface CampaignStatusRead {
  status: CampaignStatus;
  definition: CampaignDefinition | undefined;
  windowed: WindowStatus | undefined;
  cost: CampaignCost;
}

/** Reads what `campaign status ID` shows at `now` (ms); a campaign not there is CAMPAIGN_NOT_FOUND. */
export async function readCampaignStatus(
  context: Pick<AppContext, 'config' | 'ledger'>,
  id: string,
  now: number,
): Promise<CampaignStatusRead> {
  const { ledger, config } = context;
  const card = loadRateCard(config.rateCardFile);
  const status = await ledger.status(id);
  if (status === undefined) throw campaignNotFound(id);
  // Read together: each is a round trip of its own to Redis.
  const [definition, cost] = await Promise.all([ledger.getCampaign(id), statusCost(ledger, card, status)]);
  const window = definition?.window;
  const windowed = window === undefined ? undefined : windowStatus(window, await ledger.laneBacklogs(id), now);
  return { status, definition, windowed, cost };
}

/** `campaign status ID --json`, and the API's campaign. */
export function statusViewOf(read: CampaignStatusRead): StatusView {
  return { ...statusJson(read.status, read.windowed, read.definition), cost: read.cost };
}
