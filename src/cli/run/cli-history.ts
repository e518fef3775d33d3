import { userInfo } from 'node:os';
import type { AppContext } from '../../app/app-context.js';
import { actionHistoryOf, recordAction } from '../../app/action-history.js';
import type { CampaignAction, CampaignActor } from '../../campaigns/history/campaign-history.js';

/** The operator at this terminal: the OS user running the command ('' where the system has none to give). */
export function cliActor(): CampaignActor {
  try {
    return { kind: 'cli', name: userInfo().username };
  } catch {
    // A uid without a passwd entry (some containers): the action is still recorded.
    return { kind: 'cli', name: '' };
  }
}

/** Adds a CLI action that worked to the campaign's history, as this OS user (recordAction: a failed write is a warning). */
export async function recordCliAction(
  context: Pick<AppContext, 'redis' | 'config' | 'logger'>,
  campaignId: string,
  action: CampaignAction,
  detail?: string,
): Promise<void> {
  await recordAction(actionHistoryOf(context), cliActor(), campaignId, action, detail);
}
