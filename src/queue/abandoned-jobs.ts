import type { Job, Queue } from 'bullmq';
import type { SendLedger } from '../campaigns/ledger.js';
import { sendJobSchema } from '../campaigns/send-job.js';
import type { Logger } from '../logging/logger.js';

/** How many of the newest failed jobs a starting worker looks at. */
const RECENT_FAILED = 1000;

/** BullMQ gave up on this job outside the processor (stalled, too many starts, an unexpected error). */
export async function settleAbandoned(ledger: SendLedger, job: Job, reason: string, logger: Logger): Promise<void> {
  const parsed = sendJobSchema.safeParse(job.data);
  if (!parsed.success) return;
  // A row caught mid-send becomes unknown, a waiting one failed. The ledger ignores a row that
  // already has its answer or now belongs to a newer job, so this is safe to repeat.
  const result = await ledger.settle(parsed.data, { status: 'abandoned', errorCode: 'WORKER_GAVE_UP', errorDetail: reason });
  if (result.completedCampaign) logger.info({ campaignId: parsed.data.campaignId }, 'campaign completed');
}

/**
 * The `failed` event that records an abandoned job runs after BullMQ has failed it: a worker
 * that dies in between leaves the row without a job and without an answer, and its campaign
 * never completes. So every worker, when it starts, records the newest failed jobs again
 * (a no-op for rows already answered).
 */
export async function settleRecentlyFailed(queue: Queue, ledger: SendLedger, logger: Logger): Promise<void> {
  const jobs = await queue.getFailed(0, RECENT_FAILED - 1);
  for (const job of jobs) {
    // One job whose row is gone (its campaign purged) must not stop the check of the others.
    await settleAbandoned(ledger, job, job.failedReason || 'failed while no worker recorded it', logger).catch((error: unknown) =>
      logger.warn({ err: error, jobId: job.id }, 'failed job not recorded (its row is gone)'),
    );
  }
  if (jobs.length > 0) logger.debug({ failedJobs: jobs.length }, 'failed jobs checked against the ledger');
}
