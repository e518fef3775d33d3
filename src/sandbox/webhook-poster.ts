import { createHmac } from 'node:crypto';
import type { Logger } from 'pino';
import type { RequestLog } from './request-log.js';

/**
 * How the sandbox delivers a webhook, as Meta does (reference §3.1): a POST to the callback
 * URL signed with the app secret over the exact bytes sent (X-Hub-Signature-256), retried
 * with exponential backoff until the receiver answers 200 (Meta retries for days; the
 * sandbox until it closes). Statuses and inbound messages both go through one poster.
 */
export interface WebhookTarget {
  /** The receiver's callback URL (`campaign serve`'s /webhook). */
  url: string;
  /** Signs each POST (X-Hub-Signature-256), as Meta does with the app secret. */
  appSecret: string;
}

/** Where built webhook bodies go: the poster, or an in-memory list in unit tests. */
export interface WebhookSink {
  post(payload: string): void;
  readonly closed: boolean;
}

const RETRY_FIRST_MS = 200;
const RETRY_MOST_MS = 30_000;
/** One line per this long at most: a receiver that is down would otherwise log every retry of every POST. */
const WARN_EVERY_MS = 10_000;

export class WebhookPoster implements WebhookSink {
  readonly #target: WebhookTarget;
  readonly #logger: Logger | undefined;
  readonly #requestLog: RequestLog | undefined;
  readonly #posting = new Set<Promise<void>>();
  readonly #waits = new Set<{ timer: NodeJS.Timeout; wake: () => void }>();
  #closed = false;
  #lastWarning = 0;

  /** `requestLog`: where each body is captured once, as signed, however many times it is retried. */
  constructor(target: WebhookTarget, logger?: Logger, requestLog?: RequestLog) {
    this.#target = target;
    this.#logger = logger;
    this.#requestLog = requestLog;
  }

  get closed(): boolean {
    return this.#closed;
  }

  /** Starts delivering `payload` (a serialised webhook body); retries run in the background. */
  post(payload: string): void {
    if (this.#closed) return;
    this.#requestLog?.webhook(this.#target.url, payload);
    const posting = this.#deliver(payload, RETRY_FIRST_MS).finally(() => this.#posting.delete(posting));
    this.#posting.add(posting);
  }

  async #deliver(payload: string, retryMs: number): Promise<void> {
    for (let wait = retryMs; !this.#closed; wait = Math.min(RETRY_MOST_MS, wait * 2)) {
      const status = await this.#attempt(payload);
      if (status === 200 || this.#closed) return;
      if (Date.now() - this.#lastWarning >= WARN_EVERY_MS) {
        this.#lastWarning = Date.now();
        this.#logger?.warn({ status, url: this.#target.url }, 'sandbox webhooks not accepted by the receiver; retrying with backoff');
      }
      await this.#pause(wait);
    }
  }

  async #attempt(payload: string): Promise<number> {
    const signature = createHmac('sha256', this.#target.appSecret).update(payload).digest('hex');
    try {
      const response = await fetch(this.#target.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${signature}` },
        body: payload,
      });
      await response.arrayBuffer().catch(() => undefined);
      return response.status;
    } catch {
      return 0;
    }
  }

  /** A backoff wait that close() cuts short. */
  #pause(ms: number): Promise<void> {
    return new Promise<void>((resolve) => {
      const wait = {
        timer: setTimeout(() => {
          this.#waits.delete(wait);
          resolve();
        }, ms),
        wake: resolve,
      };
      this.#waits.add(wait);
    });
  }

  /** POSTs under way end at their next retry; waits for them. */
  async close(): Promise<void> {
    this.#closed = true;
    for (const wait of this.#waits) {
      clearTimeout(wait.timer);
      wait.wake();
    }
    this.#waits.clear();
    await Promise.allSettled([...this.#posting]);
  }
}
