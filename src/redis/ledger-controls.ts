import type { CancelResult, ControlLedger, PauseResult, RescheduleResult, ResumeResult, RetryPage, RetrySelection } from '../campaigns/ledger.js';
import { RETRY_HOLD_131049_MS } from '../campaigns/ledger.js';
import type { LedgerContext } from './ledger-context.js';
import { feedKeys } from './ledger-keys.js';

/** The operator's commands, each one script: pause.lua, resume.lua, cancel.lua, reschedule.lua, mark-for-retry.lua. */
export class LedgerControls implements Omit<ControlLedger, 'status' | 'isHeld'> {
  constructor(private readonly context: LedgerContext) {}

  async pause(campaignId: string, reason: string): Promise<PauseResult> {
    const outcome = await this.context.redis.cwPause((await this.context.keys(campaignId)).campaign, reason, this.context.clock.arg());
    return { outcome } as PauseResult;
  }

  async resume(campaignId: string): Promise<ResumeResult> {
    const keys = await this.context.keys(campaignId);
    const outcome = await this.context.redis.cwResume(keys.campaign, keys.recent);
    return { outcome } as ResumeResult;
  }

  async cancel(campaignId: string): Promise<CancelResult> {
    const { redis, prefix, clock } = this.context;
    const keys = await this.context.keys(campaignId);
    const [outcome, cancelled] = await redis.cwCancel(keys.campaign, keys.pending, feedKeys(prefix, keys.phoneNumberId).active, campaignId, clock.arg(), '');
    return outcome === 'cancelled' ? { outcome, cancelled: Number(cancelled) } : ({ outcome } as CancelResult);
  }

  async reschedule(campaignId: string, startsAt: number): Promise<RescheduleResult> {
    return { outcome: (await this.context.redis.cwReschedule((await this.context.keys(campaignId)).campaign, startsAt)) as RescheduleResult['outcome'] };
  }

  async markForRetry(campaignId: string, fromRow: number, toRow: number, selection: RetrySelection): Promise<RetryPage> {
    // An empty range: nothing to look at (the script's HMGET would get no fields).
    if (fromRow > toRow) return { requeued: 0, noPayload: 0, held: 0, heldUntil: 0 };
    const { redis, prefix, clock } = this.context;
    const keys = await this.context.keys(campaignId);
    const [requeued, noPayload, held, heldUntil] = await redis.cwMarkForRetry(
      keys.campaign,
      keys.rows,
      keys.pending,
      feedKeys(prefix, keys.phoneNumberId).active,
      fromRow,
      toRow,
      selection.codes.join(','),
      selection.failed ? '1' : '0',
      selection.unknown ? '1' : '0',
      campaignId,
      clock.arg(),
      RETRY_HOLD_131049_MS,
    );
    return { requeued, noPayload, held: Number(held ?? 0), heldUntil: Number(heldUntil ?? 0) };
  }
}
