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
 * A claimed row's request leaves within this long of its claim being asked for, or not at all. A
 * job whose worker stalls (Redis away in a failover, a stalled event loop) loses its BullMQ lock
 * (10 s, renewed every 5 s) and runs again elsewhere, where the claim finds the row `sending` and
 * the in-doubt rule waits CONFIRM_WINDOW_SECONDS for its status, then sends it once if none came.
 * A request of the stalled run leaving after that could reach Meta a second time. Held under the
 * lock's renewal period, it leaves before another run can take the job; and it leaves well within
 * the window, so its status settles the row first.
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
 * A claimed row whose request could not leave within the claim's lifetime (CLAIM_LIFETIME_MS):
 * its job may be running elsewhere by now, so it is not sent, and nothing is written (the row may
 * no longer be this run's to write). The job runs again, where the claim finds the row in doubt,
 * and the in-doubt rule sends it once: no status of it will come.
 */
export function tooLateToSend(job: SendJob, ageMs: number, lifetimeMs: number, logger: Logger): SendOutcome {
  const ms = Math.round(ageMs);
  logger.warn(
    { campaignId: job.campaignId, row: job.row, claimedMsAgo: ms },
    `row ${job.row} not sent: its request could not leave within ${lifetimeMs} ms of its claim (Redis or this process ` +
      'stalled); its job runs again, and the in-doubt rule settles it',
  );
  return { kind: 'retry', error: new Error(`row ${job.row} of campaign ${job.campaignId}: not sent ${ms} ms after its claim`) };
}
