import type { Logger } from '../logging/logger.js';

/** How often a worker serving every number looks for numbers that got their first campaign. */
export const DISCOVER_EVERY_MS = 2000;
/** Errors are logged at most this often: Redis away would otherwise log every look. */
const ERROR_LOG_EVERY_MS = 10_000;

/** What a worker runs for one phone number (its queue worker, feeder, sweep), until closed. */
export interface ServedNumber {
  close(): Promise<void>;
}

export interface PhoneNumberDiscoveryOptions {
  /** `--phone-number-id A,B`: serve exactly these, now; undefined: every number `known` returns, as it appears. */
  only?: readonly string[] | undefined;
  /** The numbers that have campaigns (the ledger's index of numbers). */
  known: () => Promise<string[]>;
  /** Starts serving one number. */
  serve: (phoneNumberId: string) => ServedNumber;
  logger: Logger;
  everyMs?: number;
}

/**
 * Which phone numbers one worker process serves. With a fixed list it serves those; without,
 * every number with a campaign, looking again every DISCOVER_EVERY_MS, so a campaign sent
 * from a new number is picked up by the workers already running (nobody restarts them).
 * Numbers are only ever added: a number whose campaigns ended costs an idle queue worker,
 * and its next campaign finds it ready.
 */
export class PhoneNumberDiscovery {
  readonly #options: PhoneNumberDiscoveryOptions;
  readonly #served = new Map<string, ServedNumber>();
  #timer: NodeJS.Timeout | undefined;
  #looking: Promise<void> | undefined;
  #closed = false;
  #lastErrorLog = Number.NEGATIVE_INFINITY;

  constructor(options: PhoneNumberDiscoveryOptions) {
    this.#options = options;
  }

  /** The numbers served now, in the order they were started. */
  get numbers(): string[] {
    return [...this.#served.keys()];
  }

  /** Serves the fixed list, or looks once and then keeps looking. Resolves after the first look (a failed look is logged and retried). */
  async start(): Promise<void> {
    const { only } = this.#options;
    if (only !== undefined) {
      for (const id of only) this.#serve(id);
      return;
    }
    await this.lookOnce();
    if (this.#closed || this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.lookOnce(), this.#options.everyMs ?? DISCOVER_EVERY_MS);
  }

  /** Serves every known number not served yet; one look at a time. Never rejects. */
  lookOnce(): Promise<void> {
    this.#looking ??= this.#look().finally(() => {
      this.#looking = undefined;
    });
    return this.#looking;
  }

  async #look(): Promise<void> {
    try {
      const known = await this.#options.known();
      for (const id of known) if (!this.#closed) this.#serve(id);
    } catch (error) {
      if (Date.now() - this.#lastErrorLog < ERROR_LOG_EVERY_MS) return;
      this.#lastErrorLog = Date.now();
      this.#options.logger.warn({ err: error }, 'could not read the phone numbers that have campaigns (looking again)');
    }
  }

  #serve(id: string): void {
    if (this.#served.has(id)) return;
    this.#served.set(id, this.#options.serve(id));
  }

  /** Stops looking and closes every number's worker together (each finishes its in-flight sends). */
  async close(): Promise<void> {
    this.#closed = true;
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#looking;
    await Promise.all([...this.#served.values()].map((served) => served.close()));
  }
}
