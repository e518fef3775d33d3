import type { ClaimedRow } from '../ledger.js';
import type { RowToSend, SendJob } from '../send-job.js';

/**
 * What the ledger row holds: recipient, values and header link. (A row written by a version
 * that kept values only in the job has none: then that job's values are used, still to the
 * ledger's recipient; with neither, nothing can be sent.)
 */
export function rowToSend(job: SendJob, claimed: ClaimedRow): RowToSend | undefined {
  const values = claimed.values ?? job.values;
  if (values === undefined) return undefined;
  const headerLink = claimed.values === undefined ? job.headerLink : claimed.headerLink;
  return { campaignId: job.campaignId, row: job.row, to: claimed.to, values, ...(headerLink === undefined ? {} : { headerLink }) };
}
