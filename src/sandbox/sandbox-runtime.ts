import type { MessageTemplate } from '../templates/template-schema.js';
import { AcceptedLog } from './accepted-log.js';
import { AccessTokens } from './access-token.js';
import { DuplicateSends } from './duplicate-sends.js';
import { FaultInjector, type FaultDecision } from './faults.js';
import { toGraphError, type GraphErrorReply, type GraphErrorSpec } from './graph-error.js';
import { newWamid } from './ids.js';
import { validateMessage, type ValidationContext } from './message-validation.js';
import { PairLimiter, type PairLimitSettings } from './pair-limiter.js';
import { PAIR_LIMIT_ERROR, THROUGHPUT_ERROR } from './limit-errors.js';
import { RequestStats } from './request-stats.js';
import { ServiceWindows } from './service-window.js';
import { TemplatesStore } from './templates-store.js';
import { ThroughputLimiter } from './throughput-limiter.js';

/**
 * Everything the sandbox knows and decides, without HTTP: the routes translate requests
 * into calls on this and its answers back into replies. Keeping it apart from fastify is
 * what lets a send be decided in one synchronous call.
 */
export interface RuntimeOptions {
  templates: readonly MessageTemplate[];
  accessToken: string;
  messagesPerSecond: number;
  pairLimit: PairLimitSettings | false;
  onListenerError: (error: unknown) => void;
  clock?: () => number;
  /** Draws for the random faults; tests pass a fixed sequence. Default Math.random. */
  random?: () => number;
}

export interface SendSuccessBody {
  messaging_product: 'whatsapp';
  contacts: [{ input: string; wa_id: string }];
  messages: [{ id: string; message_status?: 'accepted' }];
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
}

export class SandboxRuntime {
  readonly templates: TemplatesStore;
  readonly tokens: AccessTokens;
  readonly faults: FaultInjector;
  readonly windows = new ServiceWindows();
  readonly log: AcceptedLog;
  readonly now: () => number;
  private readonly throughput: ThroughputLimiter;
  private readonly pairs: PairLimiter | undefined;
  private readonly rejected = new Map<number, number>();
  private readonly requestStats = new RequestStats();
  private readonly duplicates = new DuplicateSends();
  private readonly context: ValidationContext;
  private sendTime = 0;

  constructor(options: RuntimeOptions) {
    this.templates = new TemplatesStore(options.templates);
    this.tokens = new AccessTokens(options.accessToken);
    this.throughput = new ThroughputLimiter(options.messagesPerSecond);
    this.pairs = options.pairLimit === false ? undefined : new PairLimiter(options.pairLimit);
    this.log = new AcceptedLog(options.onListenerError);
    this.now = options.clock ?? Date.now;
    this.faults = new FaultInjector(options.random);
    // Windows are judged at the instant the send arrived, the same one it is logged with.
    this.context = {
      templates: this.templates,
      isWindowOpen: (waId) => this.windows.isOpen(waId, this.sendTime),
    };
  }

  /**
   * Counts a /messages request that passed the token check and decides its request-wide
   * fault. Counting here, before anything can refuse or hold it, is what makes `requests`
   * include every faulted request, and a held one at the moment it arrived.
   */
  admitRequest(): FaultDecision {
    const now = this.now();
    this.requestStats.record(now);
    return this.faults.decide(now);
  }

  /**
   * Decides one send that passed the token and fault checks: validation (§7 items 1–5),
   * then any forced error for the recipient, then the number's throughput, then the
   * recipient pair's bucket, and only then records it. A send refused by a forced error or
   * the pair limit has not used any throughput or pair quota.
   */
  send(phoneNumberId: string, body: unknown): SendReply {
    const now = this.now();
    this.sendTime = now;
    const result = validateMessage(body, this.context);
    if (!result.ok) return this.reject(result.error);
    const { to, waId, type } = result.message;

    const forced = this.faults.recipientError(waId);
    if (forced !== undefined) return this.reject(forced);
    if (!this.throughput.fits(phoneNumberId, now)) return this.reject(THROUGHPUT_ERROR);
    if (this.pairs !== undefined && !this.pairs.tryTake(phoneNumberId, waId, now)) {
      return this.reject(PAIR_LIMIT_ERROR);
    }
    this.throughput.record(phoneNumberId, now);
    this.duplicates.record(phoneNumberId, waId, type, body);

    const wamid = newWamid();
    this.log.record({ wamid, phoneNumberId, to, waId, receivedAt: now, body });
    return {
      status: 200,
      body: {
        messaging_product: 'whatsapp',
        contacts: [{ input: to, wa_id: waId }],
        // Reference §1.5: the simulator always reports message_status for templates only.
        messages: [type === 'template' ? { id: wamid, message_status: 'accepted' } : { id: wamid }],
      },
    };
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
      accepted: this.log.all.length,
      rejectedByCode: Object.fromEntries([...this.rejected].map(([code, n]) => [String(code), n])),
      busiestSecond: this.log.busiestSecond,
      requests: this.requestStats.requests,
      busiestRequestSecond: this.requestStats.busiestSecond,
      duplicates: this.duplicates.duplicates,
    };
  }

  /**
   * Forgets accepted messages, counters (requests and duplicates included), windows and
   * limiter state; keeps faults, their per-recipient counters, and the token.
   */
  reset(): void {
    this.log.reset();
    this.rejected.clear();
    this.requestStats.reset();
    this.duplicates.reset();
    this.windows.reset();
    this.throughput.reset();
    this.pairs?.reset();
  }
}
