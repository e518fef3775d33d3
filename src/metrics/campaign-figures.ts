import { ROW_STATUSES, type CampaignState } from '../campaigns/campaign.js';
import type { LaneBacklog } from '../campaigns/ledger.js';
import type { CampaignCounters, CounterLabel } from '../campaigns/report/campaign-counters.js';
import { campaignEtaSeconds } from '../campaigns/report/campaign-eta.js';
import type { SendWindow } from '../campaigns/send-window.js';

/** The label values of cw_campaign_rows: every row status, and Meta's `delivered` and `read` (a read row counts in both). */
export const CAMPAIGN_ROW_LABELS: readonly CounterLabel[] = [...ROW_STATUSES, 'delivered', 'read'];

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
  return c.windowed && c.finishedAt === undefined && !c.paused && !c.cancelled;
}

/**
 * What a campaign's counters say for the metrics at `now` (ms), or undefined when its series
 * are gone: it finished more than `retentionMs` ago (METRICS_RETENTION_HOURS).
 */
export function campaignFigures(c: CampaignCounters, now: number, retentionMs: number, context: EtaContext): CampaignFigures | undefined {
  if (c.finishedAt !== undefined && now - c.finishedAt >= retentionMs) return undefined;
  const rows = new Map(CAMPAIGN_ROW_LABELS.map((label) => [label, c.rows[label]]));
  return { rows, total: c.total, etaSeconds: eta() };

  function eta(): number | undefined {
    const state: CampaignState = c.finishedAt !== undefined ? 'completed' : c.cancelled ? 'cancelled' : c.paused ? 'paused' : 'running';
    if (c.windowed && state === 'running' && context.windowed === undefined) return undefined;
    return campaignEtaSeconds({
      now,
      state,
      startsAt: c.startsAt,
      expiresAt: c.expiresAt,
      window: c.windowed ? context.windowed?.window : undefined,
      rowsLeft: c.rows.queued + c.rows.sending + c.rows.confirming,
      backlogs: context.windowed?.backlogs ?? [],
      measuredRate: measuredRate(),
      configuredRate: context.configuredRate,
    });
  }

  /** Rows a request answered per second since the first feed (rejected, skipped, cancelled and expired rows took no sending time). */
  function measuredRate(): number | undefined {
    const answered = c.rows.sent + c.rows.failed + c.rows.unknown;
    const elapsed = c.startedAt === undefined ? 0 : (now - c.startedAt) / 1000;
    return answered > 0 && elapsed > 0 ? answered / elapsed : undefined;
  }
}
