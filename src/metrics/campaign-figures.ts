import { ROW_STATUSES, type CampaignState } from '../campaigns/campaign.js';
import type { LaneBacklog } from '../campaigns/ledger.js';
import type { CampaignCounters } from '../campaigns/report/campaign-counters.js';
import { campaignEtaSeconds } from '../campaigns/report/campaign-eta.js';
import type { SendWindow } from '../campaigns/feed/send-window.js';

/**
 * The label values of cw_campaign_rows: every row status, and Meta's `delivered` and `read` (a read row counts in both); a
 * campaign that tracks clicks has `clicked` too (rows whose link was clicked, once each).
 */
export const CAMPAIGN_ROW_LABELS = [...ROW_STATUSES, 'delivered', 'read'] as const;

export interface CampaignFigures {
  rows: Map<string, number>;
  total: number;
  /** Seconds to the end with the plan `send` prints (src/campaigns/report/campaign-eta.ts); undefined when it cannot be said. */
  etaSeconds: number | undefined;
}

/** What the ETA needs beyond the counters: the number's configured rate and, for a windowed campaign, its window and lanes' backlogs. */
export interface EtaContext {
  configuredRate: number;
  /** Undefined for a windowed campaign whose definition could not be read: then no ETA. */
  windowed?: { window: SendWindow; backlogs: readonly LaneBacklog[] } | undefined;
}

/**
 * A campaign with a send window that may still send: the scrape reads its window and lanes'
 * backlogs for its ETA (no other campaign costs more than its counters).
 */
export function needsWindow(c: CampaignCounters): boolean {
  return c.windowed && c.status.finishedAt === undefined && c.status.state !== 'paused' && c.status.state !== 'cancelled';
}

/**
 * What a campaign's status says for the metrics at `now` (ms), or undefined when its series
 * are gone: it finished more than `retentionMs` ago (METRICS_RETENTION_HOURS).
 */
export function campaignFigures(c: CampaignCounters, now: number, retentionMs: number, context: EtaContext): CampaignFigures | undefined {
  const { counts, finishedAt, startedAt } = c.status;
  if (finishedAt !== undefined && now - finishedAt >= retentionMs) return undefined;
  const rows = new Map<string, number>(CAMPAIGN_ROW_LABELS.map((label) => [label, counts[label]]));
  // Only a campaign that tracks clicks has a clicked count: the others' would say 0 clicks where none could be counted.
  if (counts.clicked !== undefined) rows.set('clicked', counts.clicked);
  return { rows, total: counts.total, etaSeconds: eta() };

  function eta(): number | undefined {
    // Finished is finished (a cancelled campaign too, once its last row has its answer).
    const state: CampaignState = finishedAt !== undefined ? 'completed' : c.status.state;
    if (c.windowed && state !== 'paused' && state !== 'cancelled' && state !== 'completed' && context.windowed === undefined)
      return undefined;
    return campaignEtaSeconds({
      now,
      state,
      startsAt: c.status.startsAt,
      expiresAt: c.status.expiresAt,
      window: c.windowed ? context.windowed?.window : undefined,
      rowsLeft: counts.queued + counts.sending + counts.confirming,
      backlogs: context.windowed?.backlogs ?? [],
      measuredRate: measuredRate(),
      configuredRate: context.configuredRate,
    });
  }

  /** Rows a request answered per second since the first feed (rejected, skipped, cancelled and expired rows took no sending time). */
  function measuredRate(): number | undefined {
    const answered = counts.sent + counts.held + counts.failed + counts.unknown;
    const elapsed = startedAt === undefined ? 0 : (now - startedAt) / 1000;
    return answered > 0 && elapsed > 0 ? answered / elapsed : undefined;
  }
}
