import { CloudApiBadResponseError, CloudApiTransportError } from '../../cloud-api/cloud-api-errors.js';
import type { SendResult } from '../../cloud-api/cloud-api-client.js';
import type { OutboundMessage } from '../../cloud-api/outbound-message.js';
import type { MediaIdSource } from '../media/campaign-media.js';
import { mediaByIds } from './media-by-id.js';
import { AppError } from '../../errors/app-error.js';
import { RedisRoom } from './redis-room.js';
import type { Logger } from '../../logging/logger.js';
import type { CampaignDefinition, RowStatus } from '../campaign.js';
import { haltReason } from './halt-advice.js';
import { describeSendError } from './send-error.js';
import type { SendLedger, SettleResult, Settlement } from '../ledger.js';
import { messageForRow } from './message-for-row.js';
import { rowToSend } from './row-to-send.js';
import type { RowToSend, SendJob } from '../send-job.js';
import { SEND_ACCEPTED, sendResultOf, type SendObserver } from '../../metrics/send-observer.js';
import type { SendTroubleObserver } from './send-trouble.js';
import type { SendPacer } from '../feed/send-pacer.js';
import { MARKETING_CAP_CODE } from '../marketing-cap-wait.js';
import { mayHaveReachedMeta, type CountedSend, type FrequencyGuard } from './frequency-guard.js';
import type { AttemptContext, MessageSender, SendOutcome } from './send-outcome.js';
import { HoldCache } from './hold-cache.js';
import { CLAIM_LEAD_MS, CLAIM_LIFETIME_MS, tooLateToSend, type RowTurn } from './row-turn.js';

export type { AttemptContext, MessageSender, SendOutcome } from './send-outcome.js';

// 131057 and 2494100: the account is in maintenance for about a minute (reference §2.3).
const THROTTLE_MS: Readonly<Record<number, number>> = { 130429: 1000, 80007: 60_000, 4: 60_000, 131057: 60_000, 2494100: 60_000 };
const PAIR_DELAY_MS = 6000;
const PAIR_DELAY_MAX_MS = 10 * 60_000;
/** Meta: the recipient stopped marketing messages from this business. */
const OPTED_OUT_CODE = 131050;
/** The send response's `message_status` for a send Meta holds (template pacing). */
const HELD_STATUS = 'held_for_quality_assessment';

/** Why a `confirming` row waits (the ledger turns `unknown` into `confirming` when the rule is on). */
const AWAITING_STATUS = 'waiting for a status webhook before deciding whether to send it again';

type FinalSettlement = Exclude<Settlement, { status: 'queued' }>;

/** The part of the ledger one send uses: the row's claim and answer, the campaign's hold and definition, an opt-out, a marketing cap. */
export type SendProcessorLedger = Pick<
  SendLedger,
  'claim' | 'settle' | 'halt' | 'isHeld' | 'getCampaign' | 'recordOptOut' | 'recordMarketingCap' | 'templateStatusOf'
>;

/**
 * One recipient's send: claim the row, guard what it sends, send, record the answer. The
 * row's state is written before the request leaves, so a crash can be told apart from a
 * send that never happened. The recipient and the values come from the ledger row the claim
 * returns, never from the job: a job edited in Redis cannot redirect a message.
 */
export class SendProcessor {
  readonly #ledger: SendProcessorLedger;
  readonly #sender: MessageSender;
  readonly #media: MediaIdSource | undefined;
  readonly #logger: Logger;
  /** Redis full: claims and answers wait for room instead of failing their job. */
  readonly #room: RedisRoom;
  /** Definitions by campaign, cached as the promise: the first 100 jobs of a campaign read it once, not 100 times. */
  readonly #campaigns = new Map<string, Promise<CampaignDefinition>>();
  readonly #onCampaignCompleted: (campaignId: string) => void;
  readonly #onCampaignPaused: (campaignId: string) => void;
  readonly #pacer: SendPacer | undefined;
  readonly #holds: HoldCache;
  /** Rows whose request is out, so a shutdown that cannot wait for them can still answer them. */
  readonly #inFlight = new Set<SendJob>();
  readonly #confirmInDoubt: boolean;
  /** Metrics: each request's result and latency; absent = not measured. */
  readonly #metrics: SendObserver | undefined;
  readonly #trouble: SendTroubleObserver | undefined;
  readonly #frequency: FrequencyGuard | undefined;
  readonly #claimLifetimeMs: number;
  #stopping = false;

  constructor(deps: {
    ledger: SendProcessorLedger;
    sender: MessageSender;
    logger: Logger;
    /** Absent when the rate is unlimited. */
    pacer?: SendPacer | undefined;
    /** Called once, by the worker that records a campaign's last answer. */
    onCampaignCompleted?: (campaignId: string) => void;
    /** Called once, by the worker whose answer paused the campaign (a halting code, the error-spike brake). */
    onCampaignPaused?: (campaignId: string) => void;
    /**
     * CONFIRM_WINDOW_SECONDS > 0: a request that may have reached Meta is never retried
     * blindly; its row waits for a status webhook (the ledger's `confirming`) instead.
     */
    confirmInDoubt?: boolean;
    /** Told each request's result and latency (`campaign worker`: RedisSendRecorder, for /metrics). */
    metrics?: SendObserver | undefined;
    /** Told every throttle, retry, delay and failed or in-doubt row (`campaign worker`: SendTroubleLog, for the operator's log). */
    trouble?: SendTroubleObserver | undefined;
    /** The media IDs of campaigns that send their media by ID (`campaign worker`: the Cloud API and Redis). */
    media?: MediaIdSource | undefined;
    /** FREQUENCY_CAPS, checked and counted right before each request; absent: no caps. */
    frequency?: FrequencyGuard | undefined;
    /** Overrides CLAIM_LIFETIME_MS (tests). */
    claimLifetimeMs?: number;
  }) {
    this.#claimLifetimeMs = deps.claimLifetimeMs ?? CLAIM_LIFETIME_MS;
    this.#frequency = deps.frequency;
    this.#media = deps.media;
    this.#ledger = deps.ledger;
    this.#holds = new HoldCache((campaignId) => deps.ledger.isHeld(campaignId));
    this.#sender = deps.sender;
    this.#logger = deps.logger;
    this.#room = new RedisRoom(deps.logger, () => this.#stopping);
    this.#pacer = deps.pacer;
    this.#onCampaignCompleted = deps.onCampaignCompleted ?? ((campaignId) => deps.logger.info({ campaignId }, 'campaign completed'));
    this.#onCampaignPaused = deps.onCampaignPaused ?? (() => undefined);
    this.#confirmInDoubt = deps.confirmInDoubt === true;
    this.#metrics = deps.metrics;
    this.#trouble = deps.trouble;
  }

  async process(job: SendJob, context: AttemptContext): Promise<SendOutcome> {
    if (this.#stopping) return { kind: 'release' };
    const definition = await this.#definition(job.campaignId);

    // The slot wait comes before the claim (a worker that dies while waiting has claimed
    // nothing), up to CLAIM_LEAD_MS before the slot so the claim, gathered with others, never
    // delays the send; the admission is asked right after the claim, stamped at the slot, so
    // nothing but the request follows the slot. A paused campaign's jobs skip the slot: they
    // only park, and must not use the rate.
    const pacer = this.#pacer;
    let slotAt: number | undefined;
    if (pacer !== undefined && !(await this.#holds.isHeld(job.campaignId))) {
      const left = await this.#room.write('pacer', () => pacer.reserveSlot(CLAIM_LEAD_MS));
      if (left !== undefined) slotAt = performance.now() + left;
    }
    if (this.#stopping) return { kind: 'release' };
    const answered = context.requests === undefined ? () => undefined : await context.requests.acquire();
    try {
      return await this.#claimAndSend(job, definition, context, { slotAt, answered });
    } finally {
      answered();
    }
  }

  /** The row's claim, its message and its request; `answered` is called as the request's answer comes, before it is recorded. */
  async #claimAndSend(job: SendJob, definition: CampaignDefinition, context: AttemptContext, turn: RowTurn): Promise<SendOutcome> {
    const { phoneNumberId } = definition;
    if (this.#stopping) return { kind: 'release' };
    // Before the claim is asked for: it runs no earlier, so the row's age at its request is never counted short.
    const claimAskedAt = performance.now();
    const claim = await this.#room.write('claim', () => this.#ledger.claim(job, phoneNumberId));
    switch (claim.outcome) {
      case 'settled':
        // A cancel or an expiry answered the campaign's last row at this claim.
        if (claim.completedCampaign === true) this.#onCampaignCompleted(job.campaignId);
        return { kind: 'done', status: claim.status };
      case 'parked':
      case 'stale':
        return { kind: 'done', status: claim.outcome };
      case 'in-doubt':
        // An earlier attempt was in flight when its worker died: it may have reached Meta.
        return this.#final(job, {
          status: 'unknown',
          errorCode: 'IN_DOUBT',
          errorDetail:
            `attempt ${claim.attempts} may have been sent before its worker stopped; ` +
            `${this.#confirmInDoubt ? AWAITING_STATUS : 'not resent'}`,
        });
      case 'claimed':
        break;
    }
    const row = rowToSend(job, claim.row);
    if (row === undefined) {
      return this.#final(job, {
        status: 'failed',
        errorCode: 'JOB_PAYLOAD_INVALID',
        errorDetail: 'the ledger row has no template values (written by a version that kept them only in the job)',
      });
    }
    const built = messageForRow(definition, row);
    if (!built.ok) return this.#final(job, { status: 'failed', errorCode: 'JOB_PAYLOAD_INVALID', errorDetail: built.detail });
    let message = built.message;
    if (definition.mediaBy === 'id' && message.kind === 'template') {
      const swapped = await mediaByIds(message, definition, row.values, { phoneNumberId, media: this.#media });
      if (!swapped.ok) return this.#final(job, { status: 'failed', errorCode: swapped.code, errorDetail: swapped.detail });
      message = swapped.message;
    }

    const verdict =
      this.#frequency === undefined ? undefined : await this.#room.write('frequency', () => this.#frequency!.take(definition, row.to));
    if (verdict?.outcome === 'capped')
      return this.#final(job, { status: 'skipped', errorCode: 'FREQUENCY_CAPPED', errorDetail: verdict.detail });
    const counted = verdict?.outcome === 'taken' ? verdict.counted : undefined;
    const outcome = await this.#request(job, row, definition, message, context, { ...turn, claimAskedAt });
    // Counted only when it may have reached Meta: a refusal or another attempt takes it back.
    if (counted !== undefined && !(outcome.kind === 'done' && mayHaveReachedMeta(outcome.status))) await this.#release(counted);
    return outcome;
  }

  /** The claimed row's request and its answer recorded. */
  async #request(
    job: SendJob,
    row: RowToSend,
    definition: CampaignDefinition,
    message: OutboundMessage,
    context: AttemptContext,
    turn: RowTurn & { claimAskedAt: number },
  ): Promise<SendOutcome> {
    const pacer = this.#pacer;
    const { phoneNumberId } = definition;
    // The row is claimed: its send must not fail for lack of room in Redis (it would be in doubt).
    // Asked now, ahead of the slot: the admission resolves at it.
    const admission = pacer === undefined ? undefined : await this.#room.write('pacer', () => pacer.admit(turn.slotAt));
    const age = performance.now() - turn.claimAskedAt;
    if (age > this.#claimLifetimeMs && (await context.jobStillHeld?.()) === false) return tooLateToSend(job, age, this.#logger);
    let result: SendResult;
    this.#inFlight.add(job);
    // Metrics hook: the request alone, from leaving to its answer; counted in memory.
    const requestedAt = performance.now();
    try {
      result = await this.#sender.send(phoneNumberId, message, admission === undefined ? undefined : (write) => admission.left(write));
      this.#metrics?.recordSend(phoneNumberId, SEND_ACCEPTED, (performance.now() - requestedAt) / 1000);
    } catch (error) {
      this.#metrics?.recordSend(phoneNumberId, sendResultOf(error), (performance.now() - requestedAt) / 1000);
      return await this.#onSendError(job, row, definition, error, context);
    } finally {
      this.#inFlight.delete(job);
      turn.answered();
    }
    // Meta holds a paced template's send for quality assessment: a status webhook settles it later.
    const status = result.messageStatus === HELD_STATUS ? 'held' : 'sent';
    return this.#final(job, { status, wamid: result.wamid });
  }

  /** A counted send taken back; a failure to is logged, never the row's: the cap then errs on the side of fewer messages. */
  async #release(counted: CountedSend): Promise<void> {
    await this.#frequency?.release(counted).catch((error: unknown) => this.#logger.warn({ err: error }, 'frequency cap release failed'));
  }

  /** Shutdown: jobs that have not claimed their row yet are handed back instead of sent. */
  stop(): void {
    this.#stopping = true;
  }

  /**
   * Shutdown could not wait for these requests: their rows become `unknown` now, or
   * `confirming` under the in-doubt rule (the request left, its answer will not be recorded by
   * this process). A real answer recorded first wins.
   */
  async abandonInFlight(): Promise<number> {
    const jobs = [...this.#inFlight];
    await Promise.all(
      jobs.map((job) =>
        this.#ledger.settle(job, {
          status: 'unknown',
          errorCode: 'SHUTDOWN_IN_FLIGHT',
          errorDetail:
            `the worker shut down while this request was waiting for its answer; ` +
            `${this.#confirmInDoubt ? AWAITING_STATUS : 'not resent'}`,
        }),
      ),
    );
    return jobs.length;
  }

  async #onSendError(
    job: SendJob,
    row: RowToSend,
    definition: CampaignDefinition,
    error: unknown,
    context: AttemptContext,
  ): Promise<SendOutcome> {
    if (error instanceof CloudApiBadResponseError) {
      return this.#final(job, { status: 'unknown', errorCode: error.code, errorDetail: error.message });
    }
    const { action, code, detail, metaCode } = describeSendError(error);
    this.#logger.debug({ campaignId: job.campaignId, row: job.row, code, action }, 'send failed');
    const about = { campaignId: job.campaignId, phoneNumberId: definition.phoneNumberId, code };
    const notYet = { status: 'queued', errorCode: code, errorDetail: detail } as const;
    const mayHaveLeft = error instanceof CloudApiTransportError && error.requestMayHaveLeft;
    switch (action) {
      case 'retry':
        if (mayHaveLeft && this.#confirmInDoubt) {
          // No answer (timeout, dropped connection), but it may have reached Meta: a status
          // webhook will tell. The ledger keeps the row `confirming` until one comes, and
          // its in-doubt rule resends it once only if it never reached Meta.
          return this.#final(job, { status: 'unknown', errorCode: code, errorDetail: `${detail}; ${AWAITING_STATUS}` });
        }
        if (context.isLastAttempt) {
          // No answer to the last attempt (timeout, dropped connection): it may have been
          // delivered, so the row is unknown, and a plain `campaign retry` will not resend it.
          return this.#final(job, { status: mayHaveLeft ? 'unknown' : 'failed', errorCode: code, errorDetail: detail });
        }
        await this.#settle(job, notYet);
        this.#trouble?.record({ kind: 'retried', ...about });
        return { kind: 'retry', error: error instanceof Error ? error : new Error(detail) };
      case 'throttle-number': {
        await this.#settle(job, notYet);
        const ms = THROTTLE_MS[metaCode ?? 130429] ?? 1000;
        this.#trouble?.record({ kind: 'throttled', ...about, pauseMs: ms });
        return { kind: 'throttle-number', ms };
      }
      case 'delay-recipient':
        await this.#settle(job, notYet);
        this.#trouble?.record({ kind: 'delayed', ...about });
        return { kind: 'delay-recipient', ms: Math.min(PAIR_DELAY_MS * 2 ** context.pairDelays, PAIR_DELAY_MAX_MS) };
      case 'fail-row':
        if (metaCode === OPTED_OUT_CODE) {
          await this.#ledger.recordOptOut(definition.phoneNumberId, row.to, { campaignId: job.campaignId, row: job.row });
        }
        // Meta reports 131049 by status webhook as a rule; answered at once, it caps the user all the same (the ledger
        // decides whether the campaign is one the cap holds for).
        if (metaCode === MARKETING_CAP_CODE) await this.#ledger.recordMarketingCap(definition.phoneNumberId, job.campaignId, row.to);
        return this.#final(job, { status: 'failed', errorCode: code, errorDetail: detail });
      case 'halt-campaign': {
        const templateHeld = await this.#holdForTemplate(job, metaCode, detail, definition);
        return this.#halt(job, code, haltReason(metaCode, detail), definition.phoneNumberId, templateHeld);
      }
    }
  }

  /**
   * A halting code of a template campaign goes to the template's hold first (template-status.lua
   * decides: 132015 / 132016, the template paused or disabled, pause the campaign with the reason
   * `TEMPLATE_PAUSED: …`, and the template's reinstatement resumes it; other codes change nothing).
   * The halt that follows parks the row and leaves that pause as it is. True when the template holds it.
   */
  async #holdForTemplate(job: SendJob, metaCode: number | undefined, detail: string, definition: CampaignDefinition): Promise<boolean> {
    if (metaCode === undefined || definition.plan === undefined) return false;
    const { name, language } = definition.plan;
    const { outcome } = await this.#ledger.templateStatusOf(job.campaignId, { event: String(metaCode), name, language, detail });
    if (outcome === 'paused') {
      this.#holds.markHeld(job.campaignId);
      this.#logger.warn(
        { campaignId: job.campaignId, code: metaCode },
        `campaign paused: ${metaCode} ${detail}: its template ${name} (${language}) is not active (it resumes when Meta reinstates it)`,
      );
      this.#onCampaignPaused(job.campaignId);
    }
    return outcome === 'paused' || outcome === 'held' || outcome === 'already-held';
  }

  /** Nothing of this campaign can succeed until a human acts: the row waits for resume. */
  async #halt(job: SendJob, code: string, detail: string, phoneNumberId: string, templateHeld = false): Promise<SendOutcome> {
    const halted = await this.#ledger.halt(job, code, detail, phoneNumberId, templateHeld);
    if (halted.completedCampaign) this.#onCampaignCompleted(job.campaignId);
    this.#holds.markHeld(job.campaignId);
    if (halted.pausedCampaign) {
      this.#logger.warn(
        { campaignId: job.campaignId, code },
        `campaign paused: ${code} ${detail} (fix it, then \`campaign resume ${job.campaignId}\`)`,
      );
      this.#onCampaignPaused(job.campaignId);
    }
    return { kind: 'done', status: 'parked' };
  }

  async #final(job: SendJob, settlement: FinalSettlement): Promise<SendOutcome> {
    const result = await this.#settle(job, settlement);
    const { status } = settlement;
    if (this.#trouble !== undefined && (status === 'failed' || status === 'unknown')) {
      await this.#reportAnswer(job, { status, errorCode: settlement.errorCode }, result.status);
    }
    if (result.completedCampaign) this.#onCampaignCompleted(job.campaignId);
    // The brake may trip on the last answer: the campaign is complete then, not paused.
    if (result.pausedCampaign && !result.completedCampaign) {
      this.#holds.markHeld(job.campaignId);
      this.#logger.warn({ campaignId: job.campaignId }, 'campaign paused: too many sends failed permanently (see `campaign status`)');
      this.#onCampaignPaused(job.campaignId);
    }
    return { kind: 'done', status: result.status };
  }

  /** A failed or in-doubt answer, if the ledger took it (a webhook may have answered the row first). */
  async #reportAnswer(job: SendJob, settlement: { status: 'failed' | 'unknown'; errorCode: string }, rowStatus: RowStatus): Promise<void> {
    const took = rowStatus === settlement.status || (settlement.status === 'unknown' && rowStatus === 'confirming');
    if (!took) return;
    const { phoneNumberId } = await this.#definition(job.campaignId);
    this.#trouble?.record({ kind: settlement.status, campaignId: job.campaignId, phoneNumberId, code: settlement.errorCode });
  }

  /** Settles with the campaign's phone number (its duplicate guard forgets a refused send). */
  async #settle(job: SendJob, settlement: Settlement): Promise<SettleResult> {
    const { phoneNumberId } = await this.#definition(job.campaignId);
    return this.#room.write('settle', () => this.#ledger.settle(job, settlement, phoneNumberId));
  }

  #definition(id: string): Promise<CampaignDefinition> {
    const cached = this.#campaigns.get(id);
    if (cached !== undefined) return cached;
    const loading = this.#ledger.getCampaign(id).then((definition) => {
      if (definition === undefined) throw new AppError('CAMPAIGN_NOT_FOUND', `campaign ${id} is not in the ledger`);
      return definition;
    });
    this.#campaigns.set(id, loading);
    // A failed read is not cached: the next job asks again.
    loading.catch(() => this.#campaigns.delete(id));
    return loading;
  }
}
