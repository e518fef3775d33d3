import type {
  CancelResult,
  ControlLedger,
  PauseResult,
  RescheduleResult,
  ResumeResult,
  RetryPage,
  RetrySelection,
} from '../../campaigns/ledger.js';
import { MARKETING_CAP_WAIT_MS } from '../../campaigns/marketing-cap-wait.js';
import type { LedgerContext } from './ledger-context.js';
import { brakeKeys, cancelKeys, markForRetryKeys } from './script-keys.js';

/** The operator's commands on a campaign, each one script: pause, resume, cancel, reschedule, mark-for-retry. */
export class LedgerControls implements Omit<ControlLedger, 'status' | 'isHeld' | 'getCampaign'> {
  constructor(private readonly context: LedgerContext) {}

  async pause(campaignId: string, reason: string): Promise<PauseResult> {
    const outcome = await this.context.redis.cwPause((await this.context.keys(campaignId)).campaign, reason, this.context.clock.arg());
    return { outcome } as PauseResult;
  }

  async resume(campaignId: string): Promise<ResumeResult> {
    const { phoneNumberId } = await this.context.keys(campaignId);
    const outcome = await this.context.redis.cwResume(...brakeKeys(this.context.prefix, phoneNumberId, campaignId));
    return { outcome } as ResumeResult;
  }

  async cancel(campaignId: string): Promise<CancelResult> {
    const { redis, prefix, clock } = this.context;
    const { phoneNumberId } = await this.context.keys(campaignId);
    const [outcome, cancelled] = await redis.cwCancel(...cancelKeys(prefix, phoneNumberId, campaignId), campaignId, clock.arg(), '');
    return outcome === 'cancelled' ? { outcome, cancelled: Number(cancelled) } : ({ outcome } as CancelResult);
  }

  async reschedule(campaignId: string, startsAt: number): Promise<RescheduleResult> {
    return {
      outcome: (await this.context.redis.cwReschedule(
        (await this.context.keys(campaignId)).campaign,
        startsAt,
      )) as RescheduleResult['outcome'],
    };
  }

  async markForRetry(campaignId: string, fromRow: number, toRow: number, selection: RetrySelection): Promise<RetryPage> {
    // An empty range: nothing to look at (the script's HMGET would get no fields).
    if (fromRow > toRow) return { requeued: 0, noPayload: 0, held: 0, heldUntil: 0, usMarketing: 0, optedOut: 0, experiment: 0 };
    const { redis, prefix, clock } = this.context;
    const { phoneNumberId } = await this.context.keys(campaignId);
    // The script cannot run libphonenumber-js: it gets the US area codes the library knows
    // (loaded only here: every other command of the ledger starts without it).
    const usCodes = selection.keepUsMarketingFailed === true ? (await import('../../phone/us-numbers.js')).usAreaCodes().join(',') : '';
    const [requeued, noPayload, held, heldUntil, usMarketing, optedOut, experiment] = await redis.cwMarkForRetry(
      ...markForRetryKeys(prefix, phoneNumberId, campaignId),
      fromRow,
      toRow,
      selection.codes.join(','),
      selection.failed ? '1' : '0',
      selection.unknown ? '1' : '0',
      campaignId,
      clock.arg(),
      MARKETING_CAP_WAIT_MS,
      usCodes,
    );
    return {
      requeued,
      noPayload,
      held: Number(held ?? 0),
      heldUntil: Number(heldUntil ?? 0),
      usMarketing: Number(usMarketing ?? 0),
      optedOut: Number(optedOut ?? 0),
      experiment: Number(experiment ?? 0),
    };
  }
}
