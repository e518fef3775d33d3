import type { CampaignStatus } from '../campaigns/campaign.js';
import type { ProduceSummary } from '../campaigns/producer.js';
import { REJECTION_REASONS, type RejectionReason } from '../campaigns/rejection-reasons.js';

export interface StatusView {
  id: string;
  state: CampaignStatus['state'];
  total: number;
  /** Waiting or in flight. */
  queued: number;
  sending: number;
  sent: number;
  failed: number;
  rejected: number;
  skipped: number;
  unknown: number;
  createdAt: string;
  finishedAt: string | null;
}

/** Status as `campaign status --json` prints it: the state and the counts, flat. */
export function statusJson(status: CampaignStatus): StatusView {
  const { counts } = status;
  return {
    id: status.id,
    state: status.state,
    total: counts.total,
    queued: counts.queued + counts.sending,
    sending: counts.sending,
    sent: counts.sent,
    failed: counts.failed,
    rejected: counts.rejected,
    skipped: counts.skipped,
    unknown: counts.unknown,
    createdAt: new Date(status.createdAt).toISOString(),
    finishedAt: status.finishedAt === undefined ? null : new Date(status.finishedAt).toISOString(),
  };
}

export function statusText(status: CampaignStatus): string {
  const j = statusJson(status);
  return [
    `Campaign ${status.id}: ${status.state}`,
    `  total ${j.total}  queued ${j.queued}  sent ${j.sent}  failed ${j.failed}  rejected ${j.rejected}  skipped ${j.skipped}  unknown ${j.unknown}`,
  ].join('\n');
}

export function summaryJson(summary: ProduceSummary): Record<string, unknown> {
  return {
    id: summary.id,
    rows: summary.rows,
    queued: summary.queued,
    rejected: summary.rejected,
    skipped: summary.skipped,
    byReason: summary.byReason,
  };
}

export function summaryText(summary: ProduceSummary): string {
  const lines = [`Campaign ${summary.id}: ${summary.rows} rows read, ${summary.queued} queued, ${summary.rejected} rejected, ${summary.skipped} skipped`];
  for (const [reason, count] of Object.entries(summary.byReason)) {
    lines.push(`  ${String(count).padStart(7)}  ${reason}: ${REJECTION_REASONS[reason as RejectionReason]}`);
  }
  return lines.join('\n');
}
