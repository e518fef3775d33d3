import type { CampaignState } from '../campaign.js';
import { estimateSending } from '../feed/send-estimate.js';
import type { LaneBacklog } from '../ledger.js';
import type { SendWindow } from '../feed/send-window.js';

/** What a campaign's ETA is computed from: its definition's times and window, its state and what is left. */
export interface EtaInput {
  now: number;
  state: CampaignState;
  /** `--at`, `--expires-at` / `--valid-for`, `--window` / `--days`: from the definition. */
  startsAt: number | undefined;
  expiresAt: number | undefined;
  window: SendWindow | undefined;
  /** Rows not answered yet: queued (fed or not), sending, confirming. */
  rowsLeft: number;
  /** With a window: each lane's rows not fed yet (ledger.laneBacklogs). Rows left beyond them are fed: they go out now. */
  backlogs: readonly LaneBacklog[];
  /** Rows answered per second as measured (since the start, or over the last seconds); undefined before any. */
  measuredRate: number | undefined;
  /** The number's SEND_RATES / SEND_RATE (sendRateOf); 0 = unlimited. */
  configuredRate: number;
}

/**
 * Seconds until the campaign ends, with the plan `send` prints (estimateSending: windows,
 * days, expiry), so every place that shows an ETA says the same. 0 once it is finished (or
 * nothing is left); undefined when it cannot be said: paused or cancelled, no rate known, or
 * rows whose window never opens with no expiry to end them. Rows that would expire before
 * their turn end the campaign at its expiry: that is its ETA.
 *
 * The rate: a windowed campaign's measured average includes the hours its windows were shut,
 * so it is sent at the number's configured rate; a campaign without a window at the rate it
 * achieved, else the configured one.
 */
export function campaignEtaSeconds(input: EtaInput): number | undefined {
  const { now, state, window } = input;
  if (state === 'completed') return 0;
  if (state === 'paused' || state === 'cancelled') return undefined;
  if (input.rowsLeft <= 0) return 0;
  const measured = input.measuredRate !== undefined && input.measuredRate > 0 ? input.measuredRate : undefined;
  const rate = window === undefined ? (measured ?? input.configuredRate) : input.configuredRate;
  // Without a window, an unlimited rate and nothing measured say nothing of the time left.
  if (window === undefined && !(rate > 0)) return undefined;
  const start = Math.max(now, input.startsAt ?? now);
  const lanes =
    window === undefined
      ? []
      : input.backlogs.filter((lane) => lane.pending > 0).map((lane) => ({ zones: lane.zones, rows: lane.pending }));
  const waiting = window === undefined ? input.rowsLeft : lanes.reduce((sum, lane) => sum + lane.rows, 0);
  // With a window, rows already fed (in the queue, in flight, in doubt) go out first, whatever the windows.
  const fed = window === undefined ? 0 : Math.max(0, input.rowsLeft - waiting);
  const fedMs = rate > 0 ? Math.ceil((fed / rate) * 1000) : 0;
  const estimate = estimateSending({
    startsAt: start + fedMs,
    expiresAt: input.expiresAt,
    messagesPerSecond: rate,
    window,
    rows: waiting,
    lanes,
  });
  const endsAt = estimate.finishesAt ?? input.expiresAt;
  if (endsAt === undefined) return undefined;
  const ends = input.expiresAt === undefined ? endsAt : Math.min(endsAt, input.expiresAt);
  return Math.max(0, Math.ceil((ends - now) / 1000));
}
