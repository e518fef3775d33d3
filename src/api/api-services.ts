import type { AppContext } from '../app/app-context.js';
import type { CampaignAction } from '../campaigns/history/campaign-history.js';
import type { ApiCaller } from './api-principal.js';

/** What a caller did to a campaign, for its history (the campaign's page shows it). */
export type ApiAction = CampaignAction;

/**
 * What the API's routes work with: the same context a CLI command opens (config, logger,
 * Redis, ledger), so a route runs what the command of the same name runs.
 */
export interface ApiServices {
  context: Omit<AppContext, 'close'>;
  now: () => number;
  /**
   * Records who created, continued or retargeted a campaign, once it worked (controls record
   * themselves in runControl); a failure to record is logged, never the caller's.
   */
  recordAction(campaignId: string, caller: ApiCaller, action: ApiAction, detail?: string): Promise<void>;
}
