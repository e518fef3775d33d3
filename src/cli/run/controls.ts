import { CampaignControls } from '../../campaigns/control/campaign-controls.js';
import type { AppContext } from '../../app/app-context.js';

/** Runs one operator command on the ledger. (No queue: the feeder keeps BullMQ in step.) */
export async function withControls<T>(context: AppContext, fn: (controls: CampaignControls) => Promise<T>): Promise<T> {
  return fn(new CampaignControls({ ledger: context.ledger }));
}
