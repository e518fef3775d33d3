import { userInfo } from 'node:os';
import type { AppContext } from '../../app/app-context.js';
import type { CampaignAction, CampaignActor } from '../../campaigns/history/campaign-history.js';
import { RedisCampaignHistory } from '../../redis/history/redis-campaign-history.js';

/** The operator at this terminal: the OS user running the command ('' where the system has none to give). */
export function cliActor(): CampaignActor {
  try {
    return { kind: 'cli', name: userInfo().username };
  } catch {
    // A uid without a passwd entry (some containers): the action is still recorded.
    return { kind: 'cli', name: '' };
  }
}

/**
 * Adds a CLI action to the campaign's history, after it worked. The action stands whatever
 * happens here: a failed write is a warning, never the command's failure.
 */
export async function recordCliAction(
  context: Pick<AppContext, 'redis' | 'config' | 'logger'>,
  campaignId: string,
  action: CampaignAction,
  detail?: string,
): Promise<void> {
  try {
    const history = new RedisCampaignHistory(context.redis, context.config.queuePrefix);
    await history.record(campaignId, { at: Date.now(), actor: cliActor(), action, ...(detail === undefined ? {} : { detail }) });
  } catch (error) {
    context.logger.warn({ err: error, campaignId, action }, 'campaign history not recorded (the action itself worked)');
  }
}
