import type { MessagingLimit } from '../config/number-settings.js';
import type { Logger } from '../logging/logger.js';

/** How often a number's tier is read again from the API: Meta raises it within hours of earning it. */
export const MESSAGING_LIMIT_REFRESH_MS = 15 * 60_000;
/** A failed read is tried again this soon, and logged at most this often. */
const RETRY_MS = 60_000;

export interface MessagingLimitSourceOptions {
  phoneNumberId: string;
  /** MESSAGING_LIMITS' entry for the number: used as it is, the API is not asked. */
  fixed?: MessagingLimit | undefined;
  /** Reads the tier from the Cloud API. */
  fetch: () => Promise<MessagingLimit>;
  /** Keeps what was learnt where `campaign send` can read it for its plan. */
  store: (limit: MessagingLimit) => Promise<void>;
  logger: Logger;
  refreshMs?: number;
}

/**
 * A phone number's messaging limit (unique users per moving 24 h), for its feeder: the
 * MESSAGING_LIMITS entry, or else the tier the API reports, read at start and every 15
 * minutes. While it is unknown (the API could not be read), nothing is held back: Meta's
 * answer is then the only limit, as before this existed.
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

  /** The limit for a feed: unique users per 24 h, or undefined for none (unlimited or not known). */
  current(): number | undefined {
    return typeof this.#limit === 'number' ? this.#limit : undefined;
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
        logger.info({ phoneNumberId, messagingLimit: limit }, 'messaging limit of the number (unique users per 24 h, from the Cloud API)');
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
