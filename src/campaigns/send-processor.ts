import { CloudApiBadResponseError, CloudApiError, CloudApiTransportError } from '../cloud-api/cloud-api-errors.js';
import type { SendResult } from '../cloud-api/cloud-api-client.js';
import type { OutboundMessage } from '../cloud-api/outbound-message.js';
import { AppError } from '../errors/app-error.js';
import type { Logger } from '../logging/logger.js';
import type { CampaignDefinition, RowStatus } from './campaign.js';
import { actionForMetaCode, TRANSPORT_ACTION, type ErrorAction } from './error-policy.js';
import type { CampaignLedger } from './ledger.js';
import { messageForRow } from './message-for-row.js';
import type { SendJob } from './send-job.js';

/** Anything that can send a message; CloudApiClient is the real one. */
export interface MessageSender {
  send(phoneNumberId: string, message: OutboundMessage): Promise<SendResult>;
}

/** Spaces sends evenly at the phone number's rate; src/queue/send-pacer.ts is the real one. */
export interface SendPacer {
  /** Waits for this send's evenly spaced slot. */
  reserveSlot(): Promise<void>;
  /** The last gate before the request: never more than the rate in any second. */
  admit(): Promise<void>;
}

/** What the queue adapter must do with the job after one pass. */
export type SendOutcome =
  | { kind: 'done'; status: RowStatus }
  | { kind: 'retry'; error: Error }
  | { kind: 'throttle-number'; ms: number }
  | { kind: 'delay-recipient'; ms: number };

export interface AttemptContext {
  /** No retry is left after this attempt: a retryable failure becomes final. */
  isLastAttempt: boolean;
  /** How many times this job was already put back for the pair rate limit. */
  pairDelays: number;
}

const THROTTLE_MS: Readonly<Record<number, number>> = { 130429: 1000, 80007: 60_000, 4: 60_000 };
const PAIR_DELAY_MS = 6000;
const PAIR_DELAY_MAX_MS = 10 * 60_000;

/**
 * One recipient's send: guard the payload, claim the row, send, record the answer. The
 * row's state is written before the request leaves, so a crash can be told apart from a
 * send that never happened.
 */
export class SendProcessor {
  readonly #ledger: CampaignLedger;
  readonly #sender: MessageSender;
  readonly #logger: Logger;
  readonly #campaigns = new Map<string, CampaignDefinition>();
  readonly #onCampaignCompleted: (campaignId: string) => void;
  readonly #pacer: SendPacer | undefined;

  constructor(deps: {
    ledger: CampaignLedger;
    sender: MessageSender;
    logger: Logger;
    /** Absent when the rate is unlimited. */
    pacer?: SendPacer | undefined;
    /** Called once, by the worker that records a campaign's last answer. */
    onCampaignCompleted?: (campaignId: string) => void;
  }) {
    this.#ledger = deps.ledger;
    this.#sender = deps.sender;
    this.#logger = deps.logger;
    this.#pacer = deps.pacer;
    this.#onCampaignCompleted =
      deps.onCampaignCompleted ?? ((campaignId) => deps.logger.info({ campaignId }, 'campaign completed'));
  }

  async process(job: SendJob, context: AttemptContext): Promise<SendOutcome> {
    const definition = await this.#definition(job.campaignId);
    const built = messageForRow(definition, job);
    if (!built.ok) {
      await this.#ledger.claim(job.campaignId, job.row);
      return this.#final(job, { status: 'failed', errorCode: 'JOB_PAYLOAD_INVALID', errorDetail: built.detail });
    }

    // The slot wait comes before the claim (a worker that dies while waiting has claimed
    // nothing); the admission check comes last, so nothing but the request follows it.
    await this.#pacer?.reserveSlot();
    const claim = await this.#ledger.claim(job.campaignId, job.row);
    if (claim.outcome === 'settled') return { kind: 'done', status: claim.status };
    if (claim.outcome === 'in-doubt') {
      // An earlier attempt was in flight when its worker died: it may have reached Meta.
      return this.#final(job, {
        status: 'unknown',
        errorCode: 'IN_DOUBT',
        errorDetail: `attempt ${claim.attempts} may have been sent before its worker stopped; not resent`,
      });
    }

    await this.#pacer?.admit();
    let result: SendResult;
    try {
      result = await this.#sender.send(definition.phoneNumberId, built.message);
    } catch (error) {
      return this.#onSendError(job, error, context);
    }
    return this.#final(job, { status: 'sent', wamid: result.wamid });
  }

  async #onSendError(job: SendJob, error: unknown, context: AttemptContext): Promise<SendOutcome> {
    if (error instanceof CloudApiBadResponseError) {
      return this.#final(job, { status: 'unknown', errorCode: error.code, errorDetail: error.message });
    }
    const { action, code, detail, metaCode } = describe(error);
    this.#logger.debug({ campaignId: job.campaignId, row: job.row, code, action }, 'send failed');
    switch (action) {
      case 'retry':
        if (context.isLastAttempt) return this.#final(job, { status: 'failed', errorCode: code, errorDetail: detail });
        await this.#ledger.settle(job.campaignId, job.row, { status: 'queued', errorCode: code, errorDetail: detail });
        return { kind: 'retry', error: error instanceof Error ? error : new Error(detail) };
      case 'throttle-number':
        await this.#ledger.settle(job.campaignId, job.row, { status: 'queued', errorCode: code, errorDetail: detail });
        return { kind: 'throttle-number', ms: THROTTLE_MS[metaCode ?? 130429] ?? 1000 };
      case 'delay-recipient':
        await this.#ledger.settle(job.campaignId, job.row, { status: 'queued', errorCode: code, errorDetail: detail });
        return { kind: 'delay-recipient', ms: Math.min(PAIR_DELAY_MS * 2 ** context.pairDelays, PAIR_DELAY_MAX_MS) };
      case 'fail-row':
      case 'halt-campaign':
        return this.#final(job, { status: 'failed', errorCode: code, errorDetail: detail });
    }
  }

  async #final(job: SendJob, settlement: Parameters<CampaignLedger['settle']>[2]): Promise<SendOutcome> {
    const result = await this.#ledger.settle(job.campaignId, job.row, settlement);
    if (result.completedCampaign) this.#onCampaignCompleted(job.campaignId);
    return { kind: 'done', status: result.status };
  }

  async #definition(id: string): Promise<CampaignDefinition> {
    const cached = this.#campaigns.get(id);
    if (cached !== undefined) return cached;
    const definition = await this.#ledger.getCampaign(id);
    if (definition === undefined) throw new AppError('CAMPAIGN_NOT_FOUND', `campaign ${id} is not in the ledger`);
    this.#campaigns.set(id, definition);
    return definition;
  }
}

function describe(error: unknown): { action: ErrorAction; code: string; detail: string; metaCode: number | undefined } {
  if (error instanceof CloudApiError) {
    return {
      action: actionForMetaCode(error.metaCode, error.httpStatus),
      code: error.metaCode === undefined ? `HTTP_${error.httpStatus}` : String(error.metaCode),
      detail: error.details ?? error.message,
      metaCode: error.metaCode,
    };
  }
  if (error instanceof CloudApiTransportError) {
    return { action: TRANSPORT_ACTION, code: `TRANSPORT_${error.failure.toUpperCase().replace('-', '_')}`, detail: error.message, metaCode: undefined };
  }
  throw error;
}
