import { AppError } from '../errors/app-error.js';
import type { CampaignLedger, RetrySelection } from './ledger.js';
import { sendJobId, type SendJob, type SendJobQueue } from './send-job.js';

/** Rows per ledger call when a command walks a whole campaign: one short script per page. */
const PAGE_ROWS = 1000;

/** A phone number's send queue, as the operator commands need it. */
export interface ControlledQueue extends SendJobQueue {
  /** The payloads of these jobs, for those still in the queue (any state). */
  jobs(jobIds: readonly string[]): Promise<SendJob[]>;
  /** Removes these jobs if they are waiting or delayed (a running job cannot be removed). Returns how many went. */
  remove(jobIds: readonly string[]): Promise<number>;
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
  async pause(campaignId: string, reason = 'paused by the operator'): Promise<{ alreadyPaused: boolean; setAside: number }> {
    const { outcome } = await this.deps.ledger.pause(campaignId, reason);
    if (outcome === 'missing') throw notFound(campaignId);
    if (outcome === 'cancelled' || outcome === 'completed') throw conflict(campaignId, outcome, 'pause');
    return { alreadyPaused: outcome === 'already-paused', setAside: await this.#setAsideWaiting(campaignId) };
  }

  /**
   * Lifts the pause and enqueues the jobs it set aside. Also useful on a running campaign:
   * it enqueues anything a crashed `resume` or `retry` had set aside but not enqueued.
   */
  async resume(campaignId: string): Promise<{ wasPaused: boolean; requeued: number }> {
    const { outcome } = await this.deps.ledger.resume(campaignId);
    if (outcome === 'missing') throw notFound(campaignId);
    if (outcome === 'cancelled') throw conflict(campaignId, outcome, 'resume');
    return { wasPaused: outcome === 'resumed', requeued: await this.#enqueueSetAside(campaignId) };
  }

  /** Queued rows become `cancelled` and their jobs leave the queue; rows in flight keep their answer. */
  async cancel(campaignId: string): Promise<{ cancelled: number; removedJobs: number }> {
    const { outcome } = await this.deps.ledger.cancel(campaignId);
    if (outcome === 'missing') throw notFound(campaignId);
    if (outcome === 'completed') throw conflict(campaignId, outcome, 'cancel');
    const queue = await this.#queue(campaignId);
    let cancelled = 0;
    let removedJobs = 0;
    for (const [from, to] of await this.#pages(campaignId)) {
      const jobIds = await this.deps.ledger.cancelRows(campaignId, from, to);
      cancelled += jobIds.length;
      removedJobs += await queue.remove(jobIds);
    }
    return { cancelled, removedJobs };
  }

  /**
   * Puts the chosen failed / unknown rows back in the queue under new job IDs. Run twice, it
   * does not send twice: a requeued row is `queued`, no longer `failed`, so it is not chosen again.
   * On a paused campaign the rows wait for `resume`.
   */
  async retry(campaignId: string, selection: RetrySelection): Promise<{ requeued: number; noPayload: number; paused: boolean }> {
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
    if (!paused) await this.#enqueueSetAside(campaignId);
    return { requeued, noPayload, paused };
  }

  /**
   * Workers would park a paused campaign's waiting jobs one by one, each taking a turn of the
   * number's rate limiter: a million of them would hold up every other campaign on the number
   * for hours. So pause takes them out of the queue itself: parked in the ledger first (a
   * crash then leaves at worst an old job that finds itself stale), removed from the queue
   * after. Stops early if the campaign is resumed meanwhile.
   */
  async #setAsideWaiting(campaignId: string): Promise<number> {
    const queue = await this.#queue(campaignId);
    let setAside = 0;
    for await (const page of this.deps.ledger.rows(campaignId, PAGE_ROWS)) {
      const queued = page.filter((row) => row.status === 'queued');
      if (queued.length === 0) continue;
      const jobs = await queue.jobs(queued.map((row) => sendJobId(campaignId, row.row, row.requeue ?? 0)));
      const parked = await this.deps.ledger.parkWaiting(campaignId, jobs);
      if (parked.length === 0 && !(await this.deps.ledger.isHeld(campaignId))) break;
      await queue.remove(parked.map((job: SendJob) => sendJobId(campaignId, job.row, job.requeue ?? 0)));
      setAside += parked.length;
    }
    return setAside;
  }

  async #enqueueSetAside(campaignId: string): Promise<number> {
    const queue = await this.#queue(campaignId);
    let enqueued = 0;
    let cursor = '0';
    do {
      const page = await this.deps.ledger.takeRequeued(campaignId, cursor);
      cursor = page.cursor;
      if (page.entries.length === 0) continue;
      await queue.enqueue(page.entries.map((entry) => entry.job));
      await this.deps.ledger.requeued(campaignId, page.entries);
      enqueued += page.entries.length;
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
  const hint = state === 'cancelled' ? 'a cancelled campaign stays cancelled; send the file again under a new --campaign ID' : 'it has finished; see `campaign report`';
  return new AppError('CAMPAIGN_STATE_CONFLICT', `Cannot ${command} campaign ${id}: it is ${state} (${hint})`);
}
