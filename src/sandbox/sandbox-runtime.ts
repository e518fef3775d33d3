import type { MessageTemplate } from '../templates/template-schema.js';
import { AcceptedLog } from './accepted-log.js';
import { AccessTokens } from './access-token.js';
import { asyncFailure, type AsyncFailure } from './async-failures.js';
import { DuplicateSends } from './duplicate-sends.js';
import { FaultInjector, type FaultDecision, type FaultSettings } from './faults.js';
import type { ParsedFaultSettings } from './fault-settings.js';
import { toGraphError, type GraphErrorReply, type GraphErrorSpec } from './graph-error.js';
import { newWamid } from './ids.js';
import { markReadProblem } from './mark-as-read.js';
import { SenderMedia } from './media-object.js';
import { MediaStore } from './media-store.js';
import { marketingOnlyRefusal, onboardingRefusal, withoutMarketingFields } from './marketing-messages.js';
import { validateMessage, type MessageType } from './message-validation.js';
import { PairLimiter, type PairLimitSettings } from './pair-limiter.js';
import { PAIR_LIMIT_ERROR, THROUGHPUT_ERROR } from './limit-errors.js';
import { PhoneNumbers, unknownNumberError } from './phone-numbers.js';
import { DEFAULT_BUSINESS_ACCOUNT_IDS, checkBusinessAccountIds } from './business-accounts.js';
import { RequestStats } from './request-stats.js';
import { ServiceWindows } from './service-window.js';
import { TemplatesStore } from './templates-store.js';
import { ThroughputLimiter } from './throughput-limiter.js';
import type { MessagingLimitTier } from './messaging-limit-tiers.js';
import { unknownUserFailure, type UnknownUserFailure } from './unknown-user.js';
import { phoneOfUserId } from './user-ids.js';

/** The path a send came by: `/messages`, or the Marketing Messages API's `/marketing_messages`. */
export type SendEndpoint = 'messages' | 'marketing_messages';

/**
 * Everything the sandbox knows and decides, without HTTP: the routes translate requests
 * into calls on this and its answers back into replies. Keeping it apart from fastify is
 * what lets a send be decided in one synchronous call.
 */
export interface RuntimeOptions {
  templates: readonly MessageTemplate[];
  accessToken: string;
  /** The business numbers it has (phone-number IDs); a send to any other is refused (100/33). */
  phoneNumberIds: readonly string[];
  /** The WABAs whose templates it lists; any other is refused (100/33). Default DEFAULT_BUSINESS_ACCOUNT_IDS. */
  businessAccountIds?: readonly string[];
  messagesPerSecond: number;
  pairLimit: PairLimitSettings | false;
  /** What GET /{phone-number-id} says of the numbers' messaging limit (default TIER_UNLIMITED). */
  messagingLimitTier?: MessagingLimitTier;
  /** Keep only about this many of the newest accepted messages in memory (AcceptedLog); default all. */
  retainAccepted?: number;
  onListenerError: (error: unknown) => void;
  clock?: () => number;
  /** Draws for the random faults; tests pass a fixed sequence. Default Math.random. */
  random?: () => number;
}

/**
 * Who a send reached, as its answer names them: the phone for a send to a phone; the user ID
 * (and no `wa_id`) for a send to a user ID (reference cloud-api-2026.md §4: "`wa_id` only for
 * phone sends; `user_id` only for BSUID sends").
 */
export type SendContact = { input: string; wa_id: string } | { input: string; user_id: string };

export interface SendSuccessBody {
  messaging_product: 'whatsapp';
  contacts: [SendContact];
  messages: [{ id: string; message_status?: 'accepted' | 'held_for_quality_assessment' }];
}

export type SendReply = { status: 200; body: SendSuccessBody } | GraphErrorReply;

export interface SandboxStats {
  accepted: number;
  rejectedByCode: Record<string, number>;
  /** Most accepted messages in any sliding 1000 ms window (by receivedAt). */
  busiestSecond: number;
  /** Every POST /messages request that passed the token check: accepted or refused, faulted included. */
  requests: number;
  /** Most such requests in any sliding 1000 ms window; a held (timeout) request counts at arrival. */
  busiestRequestSecond: number;
  /** Accepted sends that repeat an earlier accepted one (see DuplicateSends for what "same" means). */
  duplicates: number;
  /** Accepted sends to be reported `failed` by webhook, by code (they count in `accepted` too). */
  failedByCode: Record<string, number>;
  /** `POST /{phone-number-id}/media` uploads by number, since the sandbox started (uploads outlive reset(), as at Meta). */
  mediaUploads: Record<string, number>;
}

export class SandboxRuntime {
  readonly templates: TemplatesStore;
  readonly tokens: AccessTokens;
  readonly faults: FaultInjector;
  readonly windows = new ServiceWindows();
  readonly log: AcceptedLog;
  /** Uploaded media: kept across reset(), like the business's other assets at Meta. */
  readonly media: MediaStore;
  readonly numbers: PhoneNumbers;
  readonly businessAccounts: ReadonlySet<string>;
  readonly now: () => number;
  readonly messagesPerSecond: number;
  /** Reported, not enforced: Meta documents no error for a number past its messaging limit (reference §4). */
  messagingLimitTier: MessagingLimitTier;
  private readonly throughput: ThroughputLimiter;
  private readonly pairs: PairLimiter | undefined;
  private readonly rejected = new Map<number, number>();
  private readonly failed = new Map<number, number>();
  private readonly requestStats = new RequestStats();
  private readonly duplicates = new DuplicateSends();

  constructor(options: RuntimeOptions) {
    this.templates = new TemplatesStore(options.templates);
    this.numbers = new PhoneNumbers(options.phoneNumberIds);
    this.businessAccounts = checkBusinessAccountIds(options.businessAccountIds ?? DEFAULT_BUSINESS_ACCOUNT_IDS);
    this.tokens = new AccessTokens(options.accessToken);
    this.throughput = new ThroughputLimiter(options.messagesPerSecond);
    this.messagesPerSecond = options.messagesPerSecond;
    this.messagingLimitTier = options.messagingLimitTier ?? 'TIER_UNLIMITED';
    this.pairs = options.pairLimit === false ? undefined : new PairLimiter(options.pairLimit);
    this.log = new AcceptedLog(options.onListenerError, options.retainAccepted);
    this.now = options.clock ?? Date.now;
    this.media = new MediaStore(this.now);
    this.faults = new FaultInjector(options.random);
  }

  /** Replaces every fault (see FaultInjector.set); a maintenance period starts now. */
  setFaults(settings: FaultSettings | ParsedFaultSettings): void {
    this.faults.set(settings, this.now());
  }

  /**
   * Counts a /messages request that passed the token check and decides its request-wide
   * fault. Counting here, before anything can refuse or hold it, is what makes `requests`
   * include every faulted request, and a held one at the moment it arrived. A number the
   * sandbox does not have is refused before any fault: Meta resolves the path's object first.
   */
  admitRequest(phoneNumberId: string): FaultDecision {
    const now = this.now();
    this.requestStats.record(now);
    if (!this.numbers.has(phoneNumberId)) return { kind: 'error', error: unknownNumberError(phoneNumberId) };
    return this.faults.decide(now, phoneNumberId);
  }

  /**
   * Decides one send that passed the token and fault checks: the number, validation (§7
   * items 1–5), then any forced synchronous error for the recipient, then the number's
   * throughput, then the recipient pair's bucket, and only then records it. A send refused
   * by a forced error or the pair limit has not used any throughput or pair quota. An
   * accepted send may still be one Meta reports `failed` later (laterFailure): it is
   * answered 200 like any other and the failure travels with it to the status webhooks.
   */
  send(phoneNumberId: string, body: unknown, endpoint: SendEndpoint = 'messages', apiMajor?: number): SendReply {
    if (!this.numbers.has(phoneNumberId)) return this.reject(unknownNumberError(phoneNumberId));
    const now = this.now();
    const marketing = endpoint === 'marketing_messages';
    const stripped = marketing ? withoutMarketingFields(body) : { ok: true as const, body };
    if (!stripped.ok) return this.reject(stripped.error);
    // The media IDs a send may name are the sending number's uploads; one naming none fails later (131053).
    const media = new SenderMedia(this.media, phoneNumberId);
    const result = validateMessage(stripped.body, { templates: this.templates, media, endpoint });
    if (!result.ok) return this.reject(result.error);
    if (marketing) {
      const refusal = marketingOnlyRefusal(result.message) ?? this.onboardingRefusal(phoneNumberId);
      if (refusal !== undefined) return this.reject(refusal);
    }
    const { to, userId, type, category } = result.message;
    // A send to a user ID reaches that user's phone, with its limits and faults; one the
    // sandbox never issued reaches nobody (unknown-user.ts) and is keyed by the ID itself.
    const waId = userId === undefined ? result.message.waId : (phoneOfUserId(userId) ?? '');
    const recipientKey = waId === '' ? (userId ?? '') : waId;

    const forced = waId === '' ? undefined : this.faults.recipientError(waId);
    if (forced !== undefined) return this.reject(forced);
    if (!this.throughput.fits(phoneNumberId, now)) return this.reject(THROUGHPUT_ERROR);
    if (this.pairs !== undefined && !this.pairs.tryTake(phoneNumberId, recipientKey, now)) {
      return this.reject(PAIR_LIMIT_ERROR);
    }
    this.throughput.record(phoneNumberId, now);
    this.duplicates.record(phoneNumberId, recipientKey, type, body);

    const wamid = newWamid(waId);
    let failure: AsyncFailure | UnknownUserFailure | undefined =
      waId === '' ? unknownUserFailure(userId ?? '') : (media.failure() ?? this.laterFailure(waId, type, category, now));
    // Template pacing (the `held` fault) holds only sends that would otherwise go through.
    const held = type === 'template' && failure === undefined ? this.faults.heldSend() : undefined;
    if (held?.dropped === true) failure = asyncFailure(132015, 'held');
    const path = {
      ...(userId === undefined ? {} : { recipientUserId: userId }),
      ...(marketing ? { endpoint: 'marketing_messages' as const } : {}),
      ...(category === undefined ? {} : { category }),
      ...(apiMajor === undefined ? {} : { apiMajor }),
    };
    const pacing = held === undefined ? {} : { heldForMs: held.forMs };
    if (failure === undefined) {
      this.log.record({ wamid, phoneNumberId, to, waId, receivedAt: now, body, ...path, ...pacing });
    } else {
      this.failed.set(failure.code, (this.failed.get(failure.code) ?? 0) + 1);
      this.log.record({ wamid, phoneNumberId, to, waId, receivedAt: now, body, failure, ...path, ...pacing });
    }
    const messageStatus = held === undefined ? 'accepted' : 'held_for_quality_assessment';
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [userId === undefined ? { input: to, wa_id: waId } : { input: userId, user_id: userId }],
        // Reference §1.5: the simulator always reports message_status for templates only.
        messages: [type === 'template' ? { id: wamid, message_status: messageStatus } : { id: wamid }],
      },
    };
  }

  /**
   * `POST /{phone-number-id}/messages` with `status: "read"` (mark-as-read.ts): answered
   * `{success: true}`, or refused. Not a send: it uses no throughput or pair quota and has no
   * statuses.
   */
  markRead(body: unknown): { status: 200; body: { success: true } } | GraphErrorReply {
    const problem = markReadProblem(body);
    return problem === undefined ? { status: 200, body: { success: true } } : this.reject(problem);
  }

  private onboardingRefusal(phoneNumberId: string): GraphErrorSpec | undefined {
    const code = this.faults.marketingMessagesRefusal(phoneNumberId);
    return code === undefined ? undefined : onboardingRefusal(code);
  }

  /**
   * What Meta would report `failed` by webhook for an accepted send, first reason first: a
   * forced failure (recipientErrors), a free-form (text or media) message outside the service window (131047,
   * reference §1.3; judged at the instant the send arrived), then opt-outs and failureShare.
   */
  private laterFailure(waId: string, type: MessageType, category: string | undefined, now: number): AsyncFailure | undefined {
    const forced = this.faults.forcedFailure(waId);
    if (forced !== undefined) return forced;
    if (type !== 'template' && !this.windows.isOpen(waId, now)) return asyncFailure(131047, 'window');
    return this.faults.laterFailure(waId, category);
  }

  /** Builds Meta's error reply and counts it under its code for stats(). */
  reject(spec: GraphErrorSpec): GraphErrorReply {
    return this.count(toGraphError(spec));
  }

  count(reply: GraphErrorReply): GraphErrorReply {
    const code = reply.body.error.code;
    this.rejected.set(code, (this.rejected.get(code) ?? 0) + 1);
    return reply;
  }

  stats(): SandboxStats {
    return {
      accepted: this.log.count,
      rejectedByCode: Object.fromEntries([...this.rejected].map(([code, n]) => [String(code), n])),
      busiestSecond: this.log.busiestSecond,
      requests: this.requestStats.requests,
      busiestRequestSecond: this.requestStats.busiestSecond,
      duplicates: this.duplicates.duplicates,
      failedByCode: Object.fromEntries([...this.failed].map(([code, n]) => [String(code), n])),
      mediaUploads: Object.fromEntries(this.media.uploadsByNumber),
    };
  }

  /**
   * Forgets accepted messages, counters (requests and duplicates included), windows and
   * limiter state; keeps faults, their per-recipient counters, and the token.
   */
  reset(): void {
    this.log.reset();
    this.rejected.clear();
    this.failed.clear();
    this.requestStats.reset();
    this.duplicates.reset();
    this.windows.reset();
    this.throughput.reset();
    this.pairs?.reset();
    this.templates.reset();
  }
}
