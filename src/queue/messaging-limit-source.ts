import type { MessagingLimit } from '../config/number-settings.js';
import type { Logger } from '../logging/logger.js';

/** How often the tier is read again from the API: Meta raises it within hours of earning it. */
export const MESSAGING_LIMIT_REFRESH_MS = 15 * 60_000;
/** A failed read is tried again this soon, and logged at most this often. */
const RETRY_MS = 60_000;

export interface MessagingLimitSourceOptions {
  phoneNumberId: string;
  /** MESSAGING_LIMITS' limit of the number's portfolio: used as it is, the API is not asked. */
  fixed?: MessagingLimit | undefined;
  /** Reads the tier from the Cloud API. */
  fetch: () => Promise<MessagingLimit>;
  /** Keeps what was learnt for the portfolio, where its numbers' feeds and `campaign send`'s plan read it. */
  store: (limit: MessagingLimit) => Promise<void>;
  logger: Logger;
  refreshMs?: number;
}

/**
 * The messaging limit (unique users per moving 24 h) of a phone number's business portfolio:
 * the MESSAGING_LIMITS entry, or else the tier the API reports on the number (Meta answers the
 * portfolio's), read at start and every 15 minutes and stored for the portfolio, where every
 * feed of its numbers reads it. While it is unknown (the API could not be read, no webhook
 * said it), nothing is held back: Meta's answer is then the only limit.
 */
export class MessagingLimitSource {
  readonly #options: MessagingLimitSourceOptions;
  #limit: MessagingLimit | undefined;
  #timer: NodeJS.Timeout | undefined;
  #lastWarning = Number.NEGATIVE_INFINITY;
  #stopped = false;

  constructor(options: MessagingLimitSourceOptions) {
    this.#options = options;
    this.#limit = options.fixed;
  }

  /** Reads the limit once (a failure is logged and retried), then keeps it fresh. */
  async start(): Promise<void> {
    const { fixed, store } = this.#options;
    if (fixed !== undefined) {
      await store(fixed).catch((error: unknown) => this.#warn(error, 'could not record the messaging limit for `campaign send`'));
      return;
    }
    await this.#read();
  }

  stop(): void {
    this.#stopped = true;
    clearTimeout(this.#timer);
    this.#timer = undefined;
  }

  async #read(): Promise<void> {
    const { fetch, store, logger, phoneNumberId } = this.#options;
    let next = this.#options.refreshMs ?? MESSAGING_LIMIT_REFRESH_MS;
    try {
      const limit = await fetch();
      if (limit !== this.#limit)
        logger.info(
          { phoneNumberId, messagingLimit: limit },
          "messaging limit of the number's portfolio (unique users per 24 h, from the Cloud API)",
        );
      this.#limit = limit;
      await store(limit);
    } catch (error) {
      next = Math.min(next, RETRY_MS);
      this.#warn(
        error,
        this.#limit === undefined
          ? 'could not read the messaging limit from the Cloud API; nothing is held back for it ' +
              'until it is known (set MESSAGING_LIMITS to give it)'
          : 'could not read the messaging limit again; keeping the last one',
      );
    }
    if (this.#stopped) return;
    this.#timer = setTimeout(() => void this.#read(), next);
    this.#timer.unref();
  }

  #warn(error: unknown, message: string): void {
    if (Date.now() - this.#lastWarning < RETRY_MS * 10) return;
    this.#lastWarning = Date.now();
    this.#options.logger.warn({ err: error, phoneNumberId: this.#options.phoneNumberId }, message);
  }
}
