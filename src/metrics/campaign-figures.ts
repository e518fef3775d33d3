import { ROW_STATUSES } from '../campaigns/campaign.js';

/** The label values of cw_campaign_rows: every row status, and Meta's `delivered` and `read` (a read row counts in both). */
export const CAMPAIGN_ROW_LABELS: readonly string[] = [...ROW_STATUSES, 'delivered', 'read'];

/**
 * The fields of a campaign's hash (`<prefix>:campaign:<id>`) a scrape reads: its counters and
 * times. Never its rows: the counters are kept by the ledger's scripts as rows move, so a
 * scrape costs the same at 10 rows or 1M.
 */
export const CAMPAIGN_FIELDS: readonly string[] = ['createdAt', 'total', ...CAMPAIGN_ROW_LABELS.map((s) => `n:${s}`), 'startedAt', 'finishedAt', 'paused', 'cancelled'];

export interface CampaignFigures {
  /** Rows by CAMPAIGN_ROW_LABELS. */
  rows: Map<string, number>;
  total: number;
  /** Seconds to the end at the rate achieved since the first feed; undefined when there is no such rate (not started, paused, nothing answered yet). */
  etaSeconds: number | undefined;
}

/**
 * What a campaign's hash says for the metrics at `now` (ms), or undefined when its series are
 * gone: it finished more than `retentionMs` ago (METRICS_RETENTION_HOURS), or has no hash.
 * `values` are the CAMPAIGN_FIELDS in order, as HMGET answers.
 */
export function campaignFigures(values: readonly (string | null)[], now: number, retentionMs: number): CampaignFigures | undefined {
  const field = (name: string): string | null => values[CAMPAIGN_FIELDS.indexOf(name)] ?? null;
  const number = (name: string): number => {
    const n = Number(field(name) ?? 0);
    return Number.isFinite(n) ? n : 0;
  };
  // Every campaign hash has it from its creation (its rows may not be read yet).
  if (field('createdAt') === null) return undefined;
  const finishedAt = field('finishedAt');
  if (finishedAt !== null && now - Number(finishedAt) >= retentionMs) return undefined;
  const rows = new Map(CAMPAIGN_ROW_LABELS.map((label) => [label, number(`n:${label}`)]));
  return { rows, total: number('total'), etaSeconds: eta() };

  function eta(): number | undefined {
    if (finishedAt !== null) return 0;
    const startedAt = field('startedAt');
    if (startedAt === null || field('paused') === '1' || field('cancelled') === '1') return undefined;
    // Rows a request answered (rejected, skipped, cancelled and expired rows took no sending time).
    const answered = number('n:sent') + number('n:failed') + number('n:unknown');
    const elapsed = (now - Number(startedAt)) / 1000;
    if (answered === 0 || !(elapsed > 0)) return undefined;
    const remaining = number('n:queued') + number('n:sending') + number('n:confirming');
    return remaining / (answered / elapsed);
  }
}
