import type { Logger } from '../../logging/logger.js';
import type { SendJob } from '../send-job.js';
import type { SendOutcome } from './send-outcome.js';

/**
 * A paced row is claimed at least this long before its slot (the pacer wakes rows on a grid of a
 * few ms, so up to that much more): its claim and then its admission each take a round trip, and
 * a claim that came back late would hold its send past its slot, then let it leave bunched with the next.
 */
export const CLAIM_LEAD_MS = 10;

/**
 * A claimed row's request that has not left within this long of its claim being asked for leaves
 * only if its job is still this worker's. A worker that stalls (Redis away in a failover, a stalled
 * event loop) loses its jobs' BullMQ locks (10 s, renewed every 5 s) and the jobs run again
 * elsewhere, where the claim finds the row `sending` and the in-doubt rule waits
 * CONFIRM_WINDOW_SECONDS for its status, then sends it once if none came. A request of the stalled
 * run leaving after that could reach Meta a second time. Within the lock's renewal period no other
 * run can have taken the job; after it the lock is checked (and extended) first.
 */
export const CLAIM_LIFETIME_MS = 3000;

/** One row's way through the send path: when its slot is, and what to call as its answer comes. */
export interface RowTurn {
  /** Its pacer slot (performance.now()'s clock); undefined when unpaced or held. */
  slotAt: number | undefined;
  /** Gives its request place back (RequestSlots): called as the answer comes, before it is recorded. */
  answered: () => void;
}

/**
 * A claimed row whose request could not leave within CLAIM_LIFETIME_MS of its claim, and whose job
 * this worker no longer holds: the job may be running elsewhere, so the row is not sent, and nothing
 * is written (it may no longer be this run's to write). The job's next run finds the row in doubt,
 * and the in-doubt rule sends it once: no status of it will come.
 */
export function tooLateToSend(job: SendJob, ageMs: number, logger: Logger): SendOutcome {
  const ms = Math.round(ageMs);
  logger.warn(
    { campaignId: job.campaignId, row: job.row, claimedMsAgo: ms },
    `row ${job.row} not sent: its request could not leave until ${ms} ms after its claim, and its job's lock was lost ` +
      '(Redis or this process stalled); the job runs again, and the in-doubt rule settles the row',
  );
  return { kind: 'retry', error: new Error(`row ${job.row} of campaign ${job.campaignId}: not sent, its job's lock lost`) };
}
