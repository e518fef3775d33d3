import { AppError } from '../errors/app-error.js';
import type { CampaignLedger, RetrySelection } from './ledger.js';
import type { SendJobQueue } from './send-job.js';

/** Rows per ledger call when a command walks a whole campaign: one short script per page. */
const PAGE_ROWS = 1000;

/** How far a sweep of the queue has got (for a progress line). */
export interface SweepProgress {
  /** Entries of the queue (waiting and delayed, every campaign's) looked at so far. */
  scanned: number;
  /** Entries waiting or delayed when the sweep started. */
  total: number;
  setAside: number;
  removed: number;
}

/** How far resume or retry has got putting set-aside rows back in the queue. */
export interface RequeueProgress {
  enqueued: number;
  /** Rows set aside when it started. */
  total: number;
}

/** A phone number's send queue, as the operator commands need it. */
export interface ControlledQueue extends SendJobQueue {
  /**
   * Takes the campaign's waiting and delayed jobs that have nothing left to do out of the
   * queue: those whose row has its answer or a newer job, and, while the campaign is paused,
   * those that own their queued row, each set aside in the ledger (for resume) in the same
   * atomic step as its removal. Jobs a worker holds are left to their claim.
   */
  sweep(campaignId: string, onProgress?: (progress: SweepProgress) => void): Promise<{ setAside: number; removed: number }>;
}

export interface ControlDeps {
  ledger: CampaignLedger;
  /** The send queue of the campaign's phone number. */
  queueFor(phoneNumberId: string): ControlledQueue;
}

/**
 * `campaign pause | resume | cancel | retry`. The ledger decides (atomically, in Redis) which
 * rows move; this walks a campaign of any size page by page and keeps the queue in step.
 * Every step can be run again after a crash: set-aside jobs stay in the ledger until they
 * are in the queue, and job IDs are deterministic, so nothing is enqueued twice.
 */
export class CampaignControls {
  constructor(private readonly deps: ControlDeps) {}

  /**
   * No row of the campaign is claimed once this returns (workers check at every claim); the
   * few claimed just before leave within a second (they only wait for their admission).
   */
  async pause(
    campaignId: string,
    reason = 'paused by the operator',
    onProgress?: (progress: SweepProgress) => void,
  ): Promise<{ alreadyPaused: boolean; setAside: number }> {
    const { outcome } = await this.deps.ledger.pause(campaignId, reason);
    if (outcome === 'missing') throw notFound(campaignId);
    if (outcome === 'cancelled' || outcome === 'completed') throw conflict(campaignId, outcome, 'pause');
    // Workers would park a paused campaign's waiting jobs one by one, each taking a turn of
    // the number's rate limiter: a million of them would hold up every other campaign on the
    // number for hours. So pause takes them out of the queue itself. A resume meanwhile
    // stops the parking (the sweep checks the pause in every window).
    const { setAside } = await (await this.#queue(campaignId)).sweep(campaignId, onProgress);
    return { alreadyPaused: outcome === 'already-paused', setAside };
  }

  /**
   * Lifts the pause and enqueues the jobs it set aside. Also useful on a running campaign:
   * it enqueues anything a crashed `resume` or `retry` had set aside but not enqueued.
   */
  async resume(campaignId: string, onProgress?: (progress: RequeueProgress) => void): Promise<{ wasPaused: boolean; requeued: number }> {
    const { outcome } = await this.deps.ledger.resume(campaignId);
    if (outcome === 'missing') throw notFound(campaignId);
    if (outcome === 'cancelled') throw conflict(campaignId, outcome, 'resume');
    return { wasPaused: outcome === 'resumed', requeued: await this.#enqueueSetAside(campaignId, onProgress) };
  }

  /** Queued rows become `cancelled` and their jobs leave the queue; rows in flight keep their answer. */
  async cancel(campaignId: string, onProgress?: (progress: SweepProgress) => void): Promise<{ cancelled: number; removedJobs: number }> {
    const { outcome } = await this.deps.ledger.cancel(campaignId);
    if (outcome === 'missing') throw notFound(campaignId);
    if (outcome === 'completed') throw conflict(campaignId, outcome, 'cancel');
    let cancelled = 0;
    for (const [from, to] of await this.#pages(campaignId)) {
      cancelled += await this.deps.ledger.cancelRows(campaignId, from, to);
    }
    // Every cancelled row's job now has nothing to do: out of the queue, so it takes no turn on the number.
    const { removed } = await (await this.#queue(campaignId)).sweep(campaignId, onProgress);
    return { cancelled, removedJobs: removed };
  }

  /**
   * Puts the chosen failed / unknown rows back in the queue under new job IDs. Run twice, it
   * does not send twice: a requeued row is `queued`, no longer `failed`, so it is not chosen again.
   * On a paused campaign the rows wait for `resume`.
   */
  async retry(
    campaignId: string,
    selection: RetrySelection,
    onProgress?: (progress: RequeueProgress) => void,
  ): Promise<{ requeued: number; noPayload: number; paused: boolean }> {
    const status = await this.deps.ledger.status(campaignId);
    if (status === undefined) throw notFound(campaignId);
    if (status.state === 'cancelled') throw conflict(campaignId, 'cancelled', 'retry');
    let requeued = 0;
    let noPayload = 0;
    for (const [from, to] of await this.#pages(campaignId)) {
      const page = await this.deps.ledger.markForRetry(campaignId, from, to, selection);
      requeued += page.requeued;
      noPayload += page.noPayload;
    }
    const paused = (await this.deps.ledger.isHeld(campaignId));
    if (!paused) await this.#enqueueSetAside(campaignId, onProgress);
    return { requeued, noPayload, paused };
  }

  async #enqueueSetAside(campaignId: string, onProgress?: (progress: RequeueProgress) => void): Promise<number> {
    const queue = await this.#queue(campaignId);
    const total = await this.deps.ledger.setAsideCount(campaignId);
    let enqueued = 0;
    let cursor = '0';
    do {
      const page = await this.deps.ledger.takeRequeued(campaignId, cursor);
      cursor = page.cursor;
      if (page.entries.length === 0) continue;
      await queue.enqueue(page.entries.map((entry) => entry.job));
      await this.deps.ledger.requeued(campaignId, page.entries);
      enqueued += page.entries.length;
      onProgress?.({ enqueued, total });
    } while (cursor !== '0');
    return enqueued;
  }

  async #queue(campaignId: string): Promise<ControlledQueue> {
    const definition = await this.deps.ledger.getCampaign(campaignId);
    if (definition === undefined) throw notFound(campaignId);
    return this.deps.queueFor(definition.phoneNumberId);
  }

  async #pages(campaignId: string): Promise<[number, number][]> {
    const total = (await this.deps.ledger.status(campaignId))?.counts.total ?? 0;
    const pages: [number, number][] = [];
    for (let from = 1; from <= total; from += PAGE_ROWS) pages.push([from, Math.min(total, from + PAGE_ROWS - 1)]);
    return pages;
  }
}

function notFound(id: string): AppError {
  return new AppError('CAMPAIGN_NOT_FOUND', `No campaign ${id} under this QUEUE_PREFIX (see \`campaign list\`)`);
}

function conflict(id: string, state: 'cancelled' | 'completed', command: string): AppError {
  const hint =
    state === 'cancelled'
      ? 'a cancelled campaign stays cancelled; to send its unsent rows, send the file under a new --campaign ID: recipients this number already sent the same message to within DUPLICATE_WINDOW_HOURS are skipped as ALREADY_SENT'
      : 'it has finished; see `campaign report`';
  return new AppError('CAMPAIGN_STATE_CONFLICT', `Cannot ${command} campaign ${id}: it is ${state} (${hint})`);
}
