import type { CampaignStatus } from '../../src/campaigns/campaign.js';
import type { CampaignDetail } from '../../src/dashboard/dashboard-reader.js';
import { campaignView, type CampaignExtras } from '../../src/dashboard/campaign-view.js';
import type { ErrorTally } from '../../src/dashboard/error-tallies.js';

/** A campaign status as the ledger's status() answers it, zero counts unless given. */
export function statusOf(
  id: string,
  overrides: Partial<CampaignStatus> = {},
  counts: Partial<CampaignStatus['counts']> = {},
): CampaignStatus {
  return {
    id,
    state: 'running',
    priority: 'normal',
    counts: {
      queued: 0,
      sending: 0,
      confirming: 0,
      held: 0,
      sent: 0,
      failed: 0,
      rejected: 0,
      skipped: 0,
      unknown: 0,
      cancelled: 0,
      expired: 0,
      total: 0,
      delivered: 0,
      read: 0,
      ...counts,
    },
    createdAt: Date.UTC(2026, 0, 1),
    finishedAt: undefined,
    pausedReason: undefined,
    pausedAt: undefined,
    ingestInterrupted: false,
    purgedAt: undefined,
    startsAt: undefined,
    startDeadline: undefined,
    expiresAt: undefined,
    startedAt: undefined,
    cancelReason: undefined,
    ...overrides,
  };
}

export function extrasOf(overrides: Partial<CampaignExtras> = {}): CampaignExtras {
  return {
    phoneNumberId: '106540352242922',
    message: 'template order_update (en_US)',
    etaSeconds: undefined,
    numberRate: undefined,
    tally: undefined,
    ...overrides,
  };
}

export function tallyOf(codes: ErrorTally['codes'], complete = true, scanned = 10): ErrorTally {
  return { codes, scanned, complete, at: Date.UTC(2026, 0, 1, 12) };
}

export function detailOf(status: CampaignStatus, extras: CampaignExtras, tally: ErrorTally): CampaignDetail {
  return {
    view: campaignView(status, { ...extras, tally }),
    status,
    identity: { phoneNumberId: extras.phoneNumberId, message: extras.message, window: extras.window },
    tally,
  };
}
