import type { MessageTemplate } from '../templates/template-schema.js';
import { AcceptedLog } from './accepted-log.js';
import { AccessTokens } from './access-token.js';
import { FaultInjector } from './faults.js';
import { toGraphError, type GraphErrorReply, type GraphErrorSpec } from './graph-error.js';
import { newWamid } from './ids.js';
import { validateMessage, type ValidationContext } from './message-validation.js';
import { PairLimiter, type PairLimitSettings } from './pair-limiter.js';
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
  busiestSecond: number;
}

export class SandboxRuntime {
  readonly templates: TemplatesStore;
  readonly tokens: AccessTokens;
  readonly faults = new FaultInjector();
  readonly windows = new ServiceWindows();
  readonly log: AcceptedLog;
  readonly now: () => number;
  private readonly throughput: ThroughputLimiter;
  private readonly pairs: PairLimiter | undefined;
  private readonly rejected = new Map<number, number>();
  private readonly context: ValidationContext;
  private sendTime = 0;

  constructor(options: RuntimeOptions) {
    this.templates = new TemplatesStore(options.templates);
    this.tokens = new AccessTokens(options.accessToken);
    this.throughput = new ThroughputLimiter(options.messagesPerSecond);
    this.pairs = options.pairLimit === false ? undefined : new PairLimiter(options.pairLimit);
    this.log = new AcceptedLog(options.onListenerError);
    this.now = options.clock ?? Date.now;
    // Windows are judged at the instant the send arrived, the same one it is logged with.
    this.context = {
      templates: this.templates,
      isWindowOpen: (waId) => this.windows.isOpen(waId, this.sendTime),
    };
  }

  /**
   * Decides one send that passed the token and fault checks: validation (§7 items 1–5),
   * then the number's throughput, then the recipient pair's bucket, and only then records
   * it. A send refused by the pair limit has not used any throughput quota.
   */
  send(phoneNumberId: string, body: unknown): SendReply {
    const now = this.now();
    this.sendTime = now;
    const result = validateMessage(body, this.context);
    if (!result.ok) return this.reject(result.error);
    const { to, waId, type } = result.message;

    if (!this.throughput.fits(phoneNumberId, now)) {
      return this.reject({
        code: 130429,
        details:
          'Message failed to send because there were too many messages sent from this phone number ' +
          'in a short period of time.',
      });
    }
    if (this.pairs !== undefined && !this.pairs.tryTake(phoneNumberId, waId, now)) {
      return this.reject({
        code: 131056,
        details: 'Too many messages were sent from this business number to the same recipient in a short time.',
      });
    }
    this.throughput.record(phoneNumberId, now);

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
    };
  }

  /** Forgets accepted messages, counters, windows and limiter state; keeps faults and token. */
  reset(): void {
    this.log.reset();
    this.rejected.clear();
    this.windows.reset();
    this.throughput.reset();
    this.pairs?.reset();
  }
}
