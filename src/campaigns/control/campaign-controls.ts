import { AppError } from '../../errors/app-error.js';
import { checkOperatorText } from '../../text/operator-text.js';
import type { ControlLedger, RetrySelection } from '../ledger.js';
import { usMarketingPaused } from '../ingest/us-marketing.js';
import type { RetryPage } from './retry-page.js';
import { campaignNotFound } from '../campaign-not-found.js';

/** The pause reason `status` shows when the operator gave none. */
export const OPERATOR_PAUSE_REASON = 'paused by the operator';

/** Rows per ledger call when retry walks a whole campaign: one short script per page. */
const PAGE_ROWS = 1000;

/** How far `retry` has got through a campaign's rows (for a progress line). */
export interface RetryProgress {
  /** Rows looked at so far. */
  scanned: number;
  total: number;
  requeued: number;
}

/** What `cancel` did: `cancelled` rows of the backlog, or nothing, as it was cancelled before (`reason`: why, when not by the operator). */
export interface CancelAnswer {
  cancelled: number;
  alreadyCancelled: boolean;
  reason: string | undefined;
  finishedAt: number | undefined;
}

export interface ControlDeps {
  ledger: ControlLedger;
}

/**
 * `campaign pause | resume | cancel | retry`. The ledger decides, atomically in Redis; the
 * queue is never touched: BullMQ only holds a phone number's window of jobs (the feeder tops
 * it up from the ledger's backlog), so pause, resume and cancel cost the same for any size of
 * campaign. Every step can be run again after a crash.
 */
export class CampaignControls {
  constructor(private readonly deps: ControlDeps) {}

  /**
   * Nothing of the campaign is fed or claimed once this returns (workers check at every
   * claim); the jobs already fed park at their claim, back in the backlog, within seconds.
   */
  async pause(campaignId: string, reason = OPERATOR_PAUSE_REASON): Promise<{ alreadyPaused: boolean }> {
    // The reason is shown to operators (status, list, the page): refused before anything changes (TEXT_CONTROL_CHARACTER).
    checkOperatorText(reason, 'reason', 'the pause reason');
    const { outcome } = await this.deps.ledger.pause(campaignId, reason);
    if (outcome === 'missing') throw campaignNotFound(campaignId);
    if (outcome === 'cancelled' || outcome === 'completed') throw conflict(campaignId, outcome, 'pause');
    return { alreadyPaused: outcome === 'already-paused' };
  }

  /** Lifts the pause: the feeder feeds the campaign's backlog again, parked rows first. */
  async resume(campaignId: string): Promise<{ wasPaused: boolean }> {
    const { outcome } = await this.deps.ledger.resume(campaignId);
    if (outcome === 'missing') throw campaignNotFound(campaignId);
    if (outcome === 'cancelled') throw conflict(campaignId, outcome, 'resume');
    return { wasPaused: outcome === 'resumed' };
  }

  /**
   * The backlog's rows become `cancelled` at once; rows already fed are cancelled at their
   * claim; rows in flight keep their answer. A campaign cancelled before is left as it is and
   * said to be (with why, and when it ended, when known).
   */
  async cancel(campaignId: string): Promise<CancelAnswer> {
    const before = await this.deps.ledger.status(campaignId);
    if (before?.state === 'cancelled')
      return { cancelled: 0, alreadyCancelled: true, reason: before.cancelReason, finishedAt: before.finishedAt };
    const result = await this.deps.ledger.cancel(campaignId);
    if (result.outcome === 'cancelled')
      return { cancelled: result.cancelled, alreadyCancelled: false, reason: undefined, finishedAt: undefined };
    if (result.outcome === 'missing') throw campaignNotFound(campaignId);
    throw conflict(campaignId, result.outcome, 'cancel');
  }

  /** Moves the start of a campaign that has not started yet (`campaign reschedule ID --at …`; `flag` names the start to the caller). */
  async reschedule(campaignId: string, startsAt: number, flag = '--at'): Promise<void> {
    const expiresAt = (await this.deps.ledger.status(campaignId))?.expiresAt;
    if (expiresAt !== undefined && startsAt >= expiresAt) {
      throw new AppError(
        'OPTION_INVALID',
        `${flag} ${new Date(startsAt).toISOString()} is not before the campaign's expiry ` +
          `(${new Date(expiresAt).toISOString()}): every row would expire unsent`,
      );
    }
    const { outcome } = await this.deps.ledger.reschedule(campaignId, startsAt);
    if (outcome === 'rescheduled') return;
    if (outcome === 'missing') throw campaignNotFound(campaignId);
    if (outcome === 'started') {
      throw new AppError(
        'CAMPAIGN_STATE_CONFLICT',
        `Cannot reschedule campaign ${campaignId}: it has started sending; \`campaign pause ${campaignId}\` stops it for now`,
      );
    }
    throw conflict(campaignId, outcome, 'reschedule');
  }

  /**
   * Puts the chosen failed / unknown rows back in the backlog under new job numbers. Run
   * twice, it does not send twice: a requeued row is `queued`, no longer `failed`, so it is not
   * chosen again. On a paused campaign the rows wait for `resume`.
   */
  async retry(
    campaignId: string,
    selection: RetrySelection,
    onProgress?: (progress: RetryProgress) => void,
  ): Promise<RetryPage & { paused: boolean }> {
    const status = await this.deps.ledger.status(campaignId);
    if (status === undefined) throw campaignNotFound(campaignId);
    if (status.purgedAt !== undefined) {
      throw new AppError(
        'CAMPAIGN_PURGED',
        `Cannot retry campaign ${campaignId}: it was purged at ${new Date(status.purgedAt).toISOString()}, so its rows ` +
          `(numbers and values) are gone and there is nothing to send again; send the file under a new --campaign ID`,
      );
    }
    if (status.state === 'cancelled') throw conflict(campaignId, 'cancelled', 'retry');
    const total = status.counts.total;
    const definition = await this.deps.ledger.getCampaign(campaignId);
    // Created without --allow-us-marketing, its US rows' 131049 is Meta's pause: a resend fails again.
    const chosen = {
      ...selection,
      keepUsMarketingFailed: usMarketingPaused(definition?.category, definition?.allowUsMarketing === true),
    };
    let requeued = 0;
    let usMarketing = 0;
    let optedOut = 0;
    let experiment = 0;
    let noPayload = 0;
    let held = 0;
    let heldUntil = 0;
    for (let from = 1; from <= total; from += PAGE_ROWS) {
      const to = Math.min(total, from + PAGE_ROWS - 1);
      const page = await this.deps.ledger.markForRetry(campaignId, from, to, chosen);
      requeued += page.requeued;
      usMarketing += page.usMarketing;
      optedOut += page.optedOut;
      experiment += page.experiment;
      noPayload += page.noPayload;
      held += page.held;
      if (page.heldUntil > 0 && (heldUntil === 0 || page.heldUntil < heldUntil)) heldUntil = page.heldUntil;
      onProgress?.({ scanned: to, total, requeued });
    }
    return { requeued, noPayload, held, heldUntil, usMarketing, optedOut, experiment, paused: await this.deps.ledger.isHeld(campaignId) };
  }
}

function conflict(id: string, state: 'cancelled' | 'completed', command: string): AppError {
  const hint =
    state === 'cancelled'
      ? 'a cancelled campaign stays cancelled; to send its unsent rows, send the file under a new --campaign ID: recipients ' +
        'this number already sent the same message to within DUPLICATE_WINDOW_HOURS are skipped as ALREADY_SENT'
      : 'it has finished; see `campaign report`';
  return new AppError('CAMPAIGN_STATE_CONFLICT', `Cannot ${command} campaign ${id}: it is ${state} (${hint})`);
}
