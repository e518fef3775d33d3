import { ROW_STATUSES, type CampaignState } from '../campaigns/campaign.js';
import type { LaneBacklog } from '../campaigns/ledger.js';
import { campaignEtaSeconds } from '../campaigns/report/campaign-eta.js';
import type { SendWindow } from '../campaigns/send-window.js';

/** The label values of cw_campaign_rows: every row status, and Meta's `delivered` and `read` (a read row counts in both). */
export const CAMPAIGN_ROW_LABELS: readonly string[] = [...ROW_STATUSES, 'delivered', 'read'];

/**
 * The fields of a campaign's hash (`<prefix>:campaign:<id>`) a scrape reads: its counters,
 * times and whether it has a send window. Never its rows: the counters are kept by the
 * ledger's scripts as rows move, so a scrape costs the same at 10 rows or 1M.
 */
export const CAMPAIGN_FIELDS: readonly string[] = [
  'createdAt', 'total', ...CAMPAIGN_ROW_LABELS.map((s) => `n:${s}`), 'startedAt', 'finishedAt', 'paused', 'cancelled', 'startsAt', 'expiresAt', 'window',
];

export interface CampaignFigures {
  rows: Map<string, number>;
  total: number;
  /** Seconds to the end with the plan `send` prints (src/campaigns/report/campaign-eta.ts); undefined when it cannot be said. */
  etaSeconds: number | undefined;
}

/** What the ETA needs beyond the hash: the number's configured rate and, for a windowed campaign, its window and lanes' backlogs. */
export interface EtaContext {
  configuredRate: number;
  /** Undefined for a windowed campaign whose definition could not be read: then no ETA. */
  windowed?: { window: SendWindow; backlogs: readonly LaneBacklog[] } | undefined;
}

/** HMGET's answer (CAMPAIGN_FIELDS in order) as a lookup by field name. */
function fieldsOf(values: readonly (string | null)[]): (name: string) => string | null {
  return (name) => values[CAMPAIGN_FIELDS.indexOf(name)] ?? null;
}

/**
 * A campaign with a send window that may still send: the scrape reads its window and lanes'
 * backlogs for its ETA (no other campaign costs more than its hash).
 */
export function needsWindow(values: readonly (string | null)[]): boolean {
  const field = fieldsOf(values);
  return field('window') === '1' && field('finishedAt') === null && field('paused') !== '1' && field('cancelled') !== '1';
}

/**
 * What a campaign's hash says for the metrics at `now` (ms), or undefined when its series are
 * gone: it finished more than `retentionMs` ago (METRICS_RETENTION_HOURS), or has no hash.
 * `values` are the CAMPAIGN_FIELDS in order, as HMGET answers.
 */
export function campaignFigures(values: readonly (string | null)[], now: number, retentionMs: number, context: EtaContext): CampaignFigures | undefined {
  const field = fieldsOf(values);
  const number = (name: string): number => {
    const n = Number(field(name) ?? 0);
    return Number.isFinite(n) ? n : 0;
  };
  const ms = (name: string): number | undefined => (field(name) === null ? undefined : number(name));
  // Every campaign hash has it from its creation (its rows may not be read yet).
  if (field('createdAt') === null) return undefined;
  const finishedAt = field('finishedAt');
  if (finishedAt !== null && now - Number(finishedAt) >= retentionMs) return undefined;
  const rows = new Map(CAMPAIGN_ROW_LABELS.map((label) => [label, number(`n:${label}`)]));
  return { rows, total: number('total'), etaSeconds: eta() };

  function eta(): number | undefined {
    const state: CampaignState = finishedAt !== null ? 'completed' : field('cancelled') === '1' ? 'cancelled' : field('paused') === '1' ? 'paused' : 'running';
    const windowed = field('window') === '1';
    if (windowed && state === 'running' && context.windowed === undefined) return undefined;
    return campaignEtaSeconds({
      now,
      state,
      startsAt: ms('startsAt'),
      expiresAt: ms('expiresAt'),
      window: windowed ? context.windowed?.window : undefined,
      rowsLeft: number('n:queued') + number('n:sending') + number('n:confirming'),
      backlogs: context.windowed?.backlogs ?? [],
      measuredRate: measuredRate(),
      configuredRate: context.configuredRate,
    });
  }

  /** Rows a request answered per second since the first feed (rejected, skipped, cancelled and expired rows took no sending time). */
  function measuredRate(): number | undefined {
    const startedAt = ms('startedAt');
    const answered = number('n:sent') + number('n:failed') + number('n:unknown');
    const elapsed = startedAt === undefined ? 0 : (now - startedAt) / 1000;
    return answered > 0 && elapsed > 0 ? answered / elapsed : undefined;
  }
}
