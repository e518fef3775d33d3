import type { CampaignCounts } from '../campaigns/campaign.js';

/**
 * The figures the pages derive from a campaign's counts, in one place so the progress bar and
 * the funnel say the same thing of the same rows.
 */

/**
 * Rows the campaign took to send: every row read but those refused (rejected, or skipped: a
 * duplicate, an opt-out, a marketing cap…), as the dry run counts the rows it would send.
 */
export function queuedRows(counts: CampaignCounts): number {
  return Math.max(0, counts.total - counts.rejected - counts.skipped);
}

/**
 * Rows that reached a final state by being sent: Meta accepted them (delivered and read rows
 * are sent rows), refused them (failed), or may have got them (unknown). Not cancelled or
 * expired rows: they were never sent, so a cancelled campaign's progress is what it sent.
 */
export function sentRows(counts: CampaignCounts): number {
  return counts.sent + counts.failed + counts.unknown;
}
