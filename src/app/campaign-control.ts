import { CampaignControls, OPERATOR_PAUSE_REASON, type CancelAnswer, type RetryProgress } from '../campaigns/control/campaign-controls.js';
import type { RetryPage } from '../campaigns/control/retry-page.js';
import type { CampaignActor } from '../campaigns/history/campaign-history.js';
import type { ControlLedger, RetrySelection } from '../campaigns/ledger.js';
import { recordAction, type ActionHistory } from './action-history.js';

/** The controls an operator runs on a campaign, from the CLI, the HTTP API or the campaign's page. */
export type CampaignControl = 'pause' | 'resume' | 'cancel' | 'reschedule' | 'retry';

/** What each control is given besides the campaign. */
export interface ControlInputs {
  /** Shown by status; OPERATOR_PAUSE_REASON when not given. */
  pause: { reason?: string | undefined };
  resume: Record<string, never>;
  cancel: Record<string, never>;
  /** `flag`: how a refusal names the new start (`--at`, the API's `at`). */
  reschedule: { startsAt: number; flag?: string | undefined };
  retry: { selection: RetrySelection; onProgress?: ((progress: RetryProgress) => void) | undefined };
}

/** What each control did, for the edge to render. */
export interface ControlAnswers {
  pause: { alreadyPaused: boolean };
  resume: { wasPaused: boolean };
  cancel: CancelAnswer;
  reschedule: { startsAt: number };
  retry: RetryPage & { paused: boolean };
}

/** A control's context: the ledger that decides, and the history a change is recorded in. */
export type ControlContext = ActionHistory & { ledger: ControlLedger };

/** What a control did, and the history's detail when it changed the campaign (undefined: it changed nothing, and is not recorded). */
interface Applied<T> {
  answer: T;
  changed: { detail?: string } | undefined;
}

type Apply<C extends CampaignControl> = (
  controls: CampaignControls,
  campaignId: string,
  input: ControlInputs[C],
) => Promise<Applied<ControlAnswers[C]>>;

/** Each control, and when and how it goes into the history: the one place that says so for the three edges. */
const APPLY: { [C in CampaignControl]: Apply<C> } = {
  pause: async (controls, id, { reason = OPERATOR_PAUSE_REASON }) => {
    const answer = await controls.pause(id, reason);
    return { answer, changed: answer.alreadyPaused ? undefined : { detail: reason } };
  },
  resume: async (controls, id) => {
    const answer = await controls.resume(id);
    return { answer, changed: answer.wasPaused ? {} : undefined };
  },
  cancel: async (controls, id) => {
    const answer = await controls.cancel(id);
    return { answer, changed: answer.alreadyCancelled ? undefined : { detail: `${answer.cancelled} rows not yet fed cancelled` } };
  },
  reschedule: async (controls, id, { startsAt, flag }) => {
    await controls.reschedule(id, startsAt, flag);
    return { answer: { startsAt }, changed: { detail: `starts at ${new Date(startsAt).toISOString()}` } };
  },
  retry: async (controls, id, { selection, onProgress }) => {
    const answer = await controls.retry(id, selection, onProgress);
    return { answer, changed: answer.requeued === 0 ? undefined : { detail: `${answer.requeued} rows put back in the queue` } };
  },
};

/**
 * Runs one control on the ledger (no queue: the feeder keeps BullMQ in step) and, once it
 * worked and changed the campaign, records it in the campaign's history with its actor (the
 * CLI's OS user, the API's token, the page's user). A refusal (an AppError) records nothing.
 */
export async function runControl<C extends CampaignControl>(
  context: ControlContext,
  actor: CampaignActor,
  control: C,
  campaignId: string,
  input: ControlInputs[C],
): Promise<ControlAnswers[C]> {
  const apply: Apply<C> = APPLY[control];
  const { answer, changed } = await apply(new CampaignControls({ ledger: context.ledger }), campaignId, input);
  if (changed !== undefined) await recordAction(context, actor, campaignId, control, changed.detail);
  return answer;
}
