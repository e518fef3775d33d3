import type { LaneBacklog } from '../ledger.js';
import { describeWindow, laneOpen, nextOpening, type SendWindow } from '../feed/send-window.js';

/** What `campaign status` says of a campaign with a send window. */
export interface WindowStatus {
  /** The window as given, e.g. `09:00-20:00 local, mon,tue,wed,thu,fri`. */
  window: string;
  /** Rows not fed yet whose recipients' window is closed now. */
  waiting: number;
  /** When the next of those windows opens; undefined when none waits (or none will open). */
  nextWindowAt: number | undefined;
}

export function windowStatus(window: SendWindow, lanes: readonly LaneBacklog[], now: number): WindowStatus {
  let waiting = 0;
  let nextWindowAt: number | undefined;
  for (const lane of lanes) {
    if (lane.pending === 0 || laneOpen(window, lane.zones, now)) continue;
    waiting += lane.pending;
    const opens = nextOpening(window, lane.zones, now);
    if (opens !== undefined && (nextWindowAt === undefined || opens < nextWindowAt)) nextWindowAt = opens;
  }
  return { window: describeWindow(window), waiting, nextWindowAt };
}
