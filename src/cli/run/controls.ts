import type { AppContext } from '../../app/app-context.js';
import { actionHistoryOf } from '../../app/action-history.js';
import { runControl, type CampaignControl, type ControlAnswers, type ControlInputs } from '../../app/campaign-control.js';
import { cliActor } from './cli-history.js';

/** `campaign pause | resume | cancel | reschedule | retry`: runControl as this OS user; the command prints what it did. */
export async function cliControl<C extends CampaignControl>(
  context: Pick<AppContext, 'ledger' | 'redis' | 'config' | 'logger'>,
  control: C,
  campaignId: string,
  input: ControlInputs[C],
): Promise<ControlAnswers[C]> {
  return runControl({ ...actionHistoryOf(context), ledger: context.ledger }, cliActor(), control, campaignId, input);
}
