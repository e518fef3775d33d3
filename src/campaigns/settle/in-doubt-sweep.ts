import type { SendLedger } from '../ledger.js';
import type { Logger } from '../../logging/logger.js';

/** How often a worker asks the ledger for in-doubt rows whose confirm window has passed. */
const SWEEP_EVERY_MS = 1000;
/** Rows decided per script call: keeps each call short while a backlog of deadlines drains. */
const SWEEP_PAGE = 500;
/** Errors are logged at most this often: Redis away would otherwise log every second. */
const ERROR_LOG_EVERY_MS = 10_000;

export interface InDoubtSweepOptions {
  ledger: Pick<SendLedger, 'confirmInDoubt' | 'retryCapped'>;
  phoneNumberId: string;
  logger: Logger;
  /** The sweep answered a campaign's last row. */
  onCampaignCompleted?: (campaignId: string) => void;
  everyMs?: number;
}

/**
 * Applies the in-doubt rule on time: every worker of a number runs one, and the ledger's
 * script decides each row exactly once (several sweeps of one number never resend a row
 * twice). Rows sent again go back to the backlog, where the feeder picks them up.
 */
export class InDoubtSweep {
  readonly #options: InDoubtSweepOptions;
  #timer: NodeJS.Timeout | undefined;
  #running: Promise<void> | undefined;
  #lastErrorLog = 0;

  constructor(options: InDoubtSweepOptions) {
    this.#options = options;
  }

  start(): void {
    if (this.#timer !== undefined) return;
    this.#timer = setInterval(() => void this.#tick(), this.#options.everyMs ?? SWEEP_EVERY_MS);
  }

  async stop(): Promise<void> {
    clearInterval(this.#timer);
    this.#timer = undefined;
    await this.#running;
  }

  /** Decides every due row (page by page); returns how many were decided. */
  async sweepOnce(): Promise<number> {
    return (await this.#confirmDue()) + (await this.#retryCapped());
  }

  /** `--retry-capped-after`: the rows whose 131049 is old enough go back to the backlog, once. */
  async #retryCapped(): Promise<number> {
    const { ledger, phoneNumberId, logger } = this.#options;
    let decided = 0;
    for (;;) {
      const { requeued, left } = await ledger.retryCapped(phoneNumberId, SWEEP_PAGE);
      decided += requeued + left;
      if (requeued + left > 0)
        logger.info({ phoneNumberId, requeued, left }, 'rows Meta capped (131049) sent again (--retry-capped-after)');
      if (requeued + left < SWEEP_PAGE) return decided;
    }
  }

  async #confirmDue(): Promise<number> {
    const { ledger, phoneNumberId, logger } = this.#options;
    let decided = 0;
    for (;;) {
      const page = await ledger.confirmInDoubt(phoneNumberId, SWEEP_PAGE);
      const count = page.resent + page.unknown + page.ended + page.heldExpired;
      decided += count;
      if (page.heldExpired > 0)
        logger.warn(
          { phoneNumberId, heldExpired: page.heldExpired },
          'held sends got no status webhook within HELD_PATIENCE_HOURS: now unknown',
        );
      if (count > page.heldExpired)
        logger.info(
          { phoneNumberId, resent: page.resent, unknown: page.unknown, ended: page.ended },
          'in-doubt rows decided (no status webhook within CONFIRM_WINDOW_SECONDS)',
        );
      for (const campaignId of page.completedCampaigns) {
        (this.#options.onCampaignCompleted ?? ((id: string) => logger.info({ campaignId: id }, 'campaign completed')))(campaignId);
      }
      if (count < SWEEP_PAGE) return decided;
    }
  }

  async #tick(): Promise<void> {
    // One sweep at a time per worker: a slow Redis must not pile calls up.
    if (this.#running !== undefined) return;
    this.#running = this.sweepOnce()
      .then(() => undefined)
      .catch((error: unknown) => {
        if (Date.now() - this.#lastErrorLog < ERROR_LOG_EVERY_MS) return;
        this.#lastErrorLog = Date.now();
        this.#options.logger.warn({ err: error }, 'in-doubt sweep failed; it runs again in a second');
      })
      .finally(() => {
        this.#running = undefined;
      });
    await this.#running;
  }
}
