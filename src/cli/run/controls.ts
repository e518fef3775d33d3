import { CampaignControls } from '../../campaigns/control/campaign-controls.js';
import type { CampaignAction } from '../../campaigns/history/campaign-history.js';
import type { AppContext } from '../../app/app-context.js';
import { recordCliAction } from './cli-history.js';

/** The history entry of a control that worked; `entry` answers undefined when it changed nothing (then none is written). */
export interface ControlRecord<T> {
  campaignId: string;
  action: CampaignAction;
  entry: (result: T) => { detail?: string } | undefined;
}

/**
 * Runs one operator command on the ledger (no queue: the feeder keeps BullMQ in step) and,
 * once it worked and changed the campaign, adds it to the campaign's history.
 */
export async function withControls<T>(
  context: AppContext,
  fn: (controls: CampaignControls) => Promise<T>,
  record?: ControlRecord<T>,
): Promise<T> {
  const result = await fn(new CampaignControls({ ledger: context.ledger }));
  const entry = record?.entry(result);
  if (record !== undefined && entry !== undefined) await recordCliAction(context, record.campaignId, record.action, entry.detail);
  return result;
}
