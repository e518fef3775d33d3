import type { StatusView } from './status-view.js';

/** `campaign status --watch --json`: the object `status --json` prints, plus what the watch measures. */
export interface WatchView extends StatusView {
  /** Rows answered (sent, failed, unknown) per second over the last few seconds; null until two reads a second apart. */
  rate: number | null;
  /**
   * Seconds until the campaign ends, with its window, days and expiry (as `send` plans it): 0 once finished; null when it cannot be said
   * (paused, cancelled, no rate known, rows whose window never opens).
   */
  etaSeconds: number | null;
}

/** Rows a request answered: what the rate counts (rejected, skipped, cancelled and expired rows take no sending time). */
export function answeredRows(view: StatusView): number {
  return view.sent + view.held + view.failed + view.unknown;
}

/** Rows still to go: waiting, in flight, or in doubt (`queued` includes `sending`). */
export function rowsLeft(view: StatusView): number {
  return view.queued + view.confirming;
}

/** `etaSeconds`: campaignEtaSeconds (src/campaigns/report/campaign-eta.ts) from what is left now. */
export function watchJson(view: StatusView, rate: number | null, etaSeconds: number | undefined): WatchView {
  return { ...view, rate: rate === null ? null : Math.round(rate * 10) / 10, etaSeconds: etaSeconds ?? null };
}
