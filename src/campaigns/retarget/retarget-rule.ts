import { AppError } from '../../errors/app-error.js';
import type { RowRecord } from '../campaign.js';

/** `campaign retarget --status`: which rows of a finished campaign make the new one. */
export const RETARGET_STATUSES = ['delivered-not-read', 'failed', 'not-replied', 'clicked', 'not-clicked'] as const;
export type RetargetStatus = (typeof RETARGET_STATUSES)[number];

/** The rule: the status, and with `--after` how long ago (ms) the row must have been delivered or sent. */
export interface RetargetRule {
  status: RetargetStatus;
  afterMs?: number | undefined;
}

/** What the rule reads of a row: its record, and when it was claimed to be sent (the ledger's clock, ms). */
export type RetargetCandidate = Pick<RowRecord, 'status' | 'deliveredAt' | 'readAt' | 'reply' | 'flowResponse' | 'clickedAt'> & {
  sentAt?: number | undefined;
  failedAt?: number | undefined;
};

export function parseRetargetStatus(value: string, flag = '--status'): RetargetStatus {
  const status = RETARGET_STATUSES.find((known) => known === value);
  if (status === undefined) {
    throw new AppError('OPTION_INVALID', `${flag} "${value.slice(0, 40)}": give one of ${RETARGET_STATUSES.join(', ')}`);
  }
  return status;
}

/**
 * Whether the rule chooses the row at `now` (ms).
 * - `failed`: the row failed (Meta refused it, or its status webhook said failed); with `afterMs`, failed (or sent) at least that long ago.
 * - `delivered-not-read`: Meta delivered it and no read came; with `afterMs`, delivered at least that long ago.
 * - `not-replied`: it was sent (delivered and read ones too) and no reply to it was recorded (a quick-reply tap, or an
 *   answer to the Flow it opened: both are the recipient answering this message); with `afterMs`, sent at least that
 *   long ago. A row whose send time is unknown counts as sent long enough ago only by its delivery.
 * - `clicked`: its tracked link (`send --track-clicks`) was clicked; with `afterMs`, first clicked at least that long ago.
 * - `not-clicked`: it was sent (delivered and read ones too) and no click on its link was recorded; with `afterMs`, sent at least
 *   that long ago, as `not-replied`.
 */
export function chosenByRule(rule: RetargetRule, row: RetargetCandidate, now: number): boolean {
  const oldEnough = (at: number | undefined): boolean => rule.afterMs === undefined || (at !== undefined && at <= now - rule.afterMs);
  switch (rule.status) {
    case 'failed':
      return row.status === 'failed' && oldEnough(row.failedAt ?? row.sentAt);
    case 'delivered-not-read':
      return row.status === 'sent' && row.deliveredAt !== undefined && row.readAt === undefined && oldEnough(row.deliveredAt);
    case 'not-replied':
      return row.status === 'sent' && !replied(row) && oldEnough(row.sentAt ?? row.deliveredAt);
    case 'clicked':
      return row.clickedAt !== undefined && oldEnough(row.clickedAt);
    case 'not-clicked':
      return row.status === 'sent' && row.clickedAt === undefined && oldEnough(row.sentAt ?? row.deliveredAt);
  }
}

/** A reply of either kind is on the row: what the funnel's `replied` counts too (apply-inbound.lua). */
function replied(row: Pick<RetargetCandidate, 'reply' | 'flowResponse'>): boolean {
  return row.reply !== undefined || row.flowResponse !== undefined;
}
