import type { CampaignCharts } from '../campaign-charts.js';
import type { CampaignView } from '../campaign-view.js';

/**
 * What a page's live JSON answers (`data-live` on <body>: the list's /api/campaigns, a
 * campaign's /api/campaigns/{id}): its campaigns as the page shows them, and on a campaign's
 * page its charts. The live script dispatches each as the `live-data` event.
 */
export interface LiveData {
  at: string;
  campaigns: CampaignView[];
  charts?: CampaignCharts;
}

export const LIVE_DATA_EVENT = 'live-data';
