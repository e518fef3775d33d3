import type { Job, Queue } from 'bullmq';
import type { SendLedger } from '../campaigns/ledger.js';
import { groupRows, sendGroupSchema, sendJobSchema, type SendJob } from '../campaigns/send-job.js';
import type { SendTroubleObserver } from '../campaigns/send/send-trouble.js';
import type { Logger } from '../logging/logger.js';

/** How many of the newest failed jobs a starting worker looks at. */
const RECENT_FAILED = 1000;
/** The code such a row is recorded with. */
const GAVE_UP_CODE = 'WORKER_GAVE_UP';

/** Who hears of a row answered this way. */
export interface AbandonedReport {
  logger: Logger;
  phoneNumberId: string;
  /** Default: logged. */
  onCampaignCompleted?: ((campaignId: string) => void) | undefined;
  /**
   * Counts the row for the operator's log (SendTroubleLog). Only where BullMQ has just given
   * up on the job: the check at start repeats rows answered long ago, and would count them again.
   */
  trouble?: SendTroubleObserver | undefined;
}

/**
 * BullMQ gave up on this job outside the processor (stalled, too many starts, an unexpected
 * error): each of its rows gets its answer, and a group then leaves the number's window.
 */
export async function settleAbandoned(ledger: SendLedger, job: Job, reason: string, report: AbandonedReport): Promise<void> {
  const group = sendGroupSchema.safeParse(job.data);
  if (group.success) {
    // All at once, so the ledger gathers their answers into few calls; a row gone (its campaign
    // purged) must not keep the others from theirs.
    await Promise.all(
      groupRows(group.data).map((row) =>
        settleAbandonedRow(ledger, row, reason, report).catch((error: unknown) =>
          report.logger.warn({ err: error, jobId: job.id, campaignId: row.campaignId, row: row.row }, 'abandoned row not recorded'),
        ),
      ),
    );
    await ledger.groupDone(report.phoneNumberId, group.data);
    return;
  }
  const parsed = sendJobSchema.safeParse(job.data);
  if (parsed.success) await settleAbandonedRow(ledger, parsed.data, reason, report);
}

async function settleAbandonedRow(ledger: SendLedger, row: SendJob, reason: string, report: AbandonedReport): Promise<void> {
  const { campaignId } = row;
  // A row caught mid-send becomes unknown, a waiting one failed. The ledger ignores a row that
  // already has its answer or now belongs to a newer job, so this is safe to repeat.
  const result = await ledger.settle(row, { status: 'abandoned', errorCode: GAVE_UP_CODE, errorDetail: reason });
  const answered =
    result.status === 'failed' ? 'failed' : result.status === 'unknown' || result.status === 'confirming' ? 'unknown' : undefined;
  if (answered !== undefined)
    report.trouble?.record({ kind: answered, campaignId, phoneNumberId: report.phoneNumberId, code: GAVE_UP_CODE });
  if (result.completedCampaign)
    (report.onCampaignCompleted ?? ((id: string) => report.logger.info({ campaignId: id }, 'campaign completed')))(campaignId);
}

/**
 * The `failed` event that records an abandoned job runs after BullMQ has failed it: a worker
 * that dies in between leaves the row without a job and without an answer, and its campaign
 * never completes. So every worker, when it starts, records the newest failed jobs again
 * (a no-op for rows already answered).
 */
export async function settleRecentlyFailed(queue: Queue, ledger: SendLedger, report: AbandonedReport): Promise<void> {
  const jobs = await queue.getFailed(0, RECENT_FAILED - 1);
  for (const job of jobs) {
    // One job whose row is gone (its campaign purged) must not stop the check of the others.
    await settleAbandoned(ledger, job, job.failedReason || 'failed while no worker recorded it', report).catch((error: unknown) =>
      report.logger.warn({ err: error, jobId: job.id }, 'failed job not recorded (its row is gone)'),
    );
  }
  if (jobs.length > 0) report.logger.debug({ failedJobs: jobs.length }, 'failed jobs checked against the ledger');
}
