import { describeWindow, laneOpen, nextOpening, type SendWindow } from './send-window.js';

/** What the dry run (and `send`) shows of a campaign's sending. */
export interface SendEstimate {
  startsAt: number;
  /** The send window as given (describeWindow); undefined without one. */
  window: string | undefined;
  /** When the last row would be sent; undefined when some rows would never be (they expire or their window never opens). */
  finishesAt: number | undefined;
  /** Rows whose expiry (`--expires-at`, `--valid-for`) comes before their turn. */
  wouldExpire: number;
  /** Rows in lanes whose zones' windows never overlap (they wait until the campaign expires or is cancelled). */
  neverOpen: number;
  /** Rows per lane (the zones its recipients may be in) and when its window first opens. */
  lanes: { zones: string[]; rows: number; opensAt: number | undefined }[];
}

export interface EstimateInput {
  startsAt: number;
  expiresAt: number | undefined;
  /** SEND_RATE; 0 = unlimited. */
  messagesPerSecond: number;
  window: SendWindow | undefined;
  /** Rows to send; with a window, per lane. */
  rows: number;
  lanes: readonly { zones: readonly string[]; rows: number }[];
}

const MINUTE_MS = 60_000;
/** The plan looks this far ahead; a campaign still sending then is shown without an end. */
const HORIZON_MS = 366 * 86_400_000;

/**
 * When a campaign would finish if it had its number to itself: minute by minute, the rate is
 * shared evenly between the lanes open in that minute (as the feeder shares it), and time with
 * every lane closed is skipped to the next opening.
 */
export function estimateSending(input: EstimateInput): SendEstimate {
  const { startsAt, expiresAt, window } = input;
  if (window === undefined) return estimateWithoutWindow(input);
  const perMinute = input.messagesPerSecond > 0 ? input.messagesPerSecond * 60 : Number.POSITIVE_INFINITY;
  const lanes =
    window === undefined ? [{ zones: [] as string[], rows: input.rows }] : input.lanes.map((l) => ({ zones: [...l.zones], rows: l.rows }));
  const opensAt = lanes.map((lane) => (window === undefined ? startsAt : nextOpening(window, lane.zones, startsAt)));
  const left = lanes.map((lane) => lane.rows);
  const neverOpen = lanes.reduce((sum, lane, i) => sum + (opensAt[i] === undefined ? lane.rows : 0), 0);
  const end = Math.min(expiresAt ?? Number.POSITIVE_INFINITY, startsAt + HORIZON_MS);
  const isOpen = (i: number, at: number) => window === undefined || laneOpen(window, lanes[i]?.zones ?? [], at);

  let at = startsAt;
  let finishesAt: number | undefined = startsAt;
  while (left.some((n, i) => n > 0 && opensAt[i] !== undefined)) {
    if (at >= end) {
      finishesAt = undefined;
      break;
    }
    const open = left.map((n, i) => (n > 0 && opensAt[i] !== undefined && isOpen(i, at) ? i : -1)).filter((i) => i >= 0);
    if (open.length === 0) {
      // Every lane with rows is closed: jump to the first that opens.
      const next = Math.min(
        ...left.map((n, i) => (n > 0 && window !== undefined ? (nextOpening(window, lanes[i]?.zones ?? [], at) ?? Infinity) : Infinity)),
      );
      if (!Number.isFinite(next)) break;
      at = Math.max(next, at + 1);
      continue;
    }
    const slice = Math.min(MINUTE_MS - (at % MINUTE_MS), end - at);
    const capacity = (perMinute * slice) / MINUTE_MS;
    // Water-filling: lanes with fewer rows than their share finish, the rest share what is left.
    let remaining = capacity;
    let sharing = open.slice().sort((a, b) => (left[a] ?? 0) - (left[b] ?? 0));
    while (sharing.length > 0 && remaining > 1e-9) {
      const share = remaining / sharing.length;
      const take = Math.min(share, left[sharing[0] ?? 0] ?? 0);
      for (const i of sharing) left[i] = (left[i] ?? 0) - take;
      remaining -= take * sharing.length;
      sharing = sharing.filter((i) => (left[i] ?? 0) > 1e-9);
    }
    for (let i = 0; i < left.length; i++) if ((left[i] ?? 0) <= 1e-9) left[i] = 0;
    if (left.every((n, i) => n === 0 || opensAt[i] === undefined)) {
      // The whole rate was in use until the last row went: that is when it finished.
      finishesAt = Number.isFinite(perMinute) ? at + Math.ceil(((capacity - remaining) / perMinute) * MINUTE_MS) : at;
      break;
    }
    at += slice;
  }
  const wouldExpire =
    Math.round(left.reduce((sum, n, i) => sum + (opensAt[i] === undefined ? 0 : n), 0)) + (expiresAt === undefined ? 0 : neverOpen);
  if (neverOpen > 0 || wouldExpire > 0) finishesAt = undefined;
  return {
    startsAt,
    window: window === undefined ? undefined : describeWindow(window),
    finishesAt,
    wouldExpire,
    neverOpen,
    lanes: window === undefined ? [] : lanes.map((lane, i) => ({ zones: lane.zones, rows: lane.rows, opensAt: opensAt[i] })),
  };
}

/**
 * Without a window the rate is never shared out or paused, so the minute-by-minute walk comes
 * to rows ÷ rate, up to the expiry (or the plan's horizon): said at once, as the ETAs of
 * status and the metrics ask for it every few seconds.
 */
function estimateWithoutWindow(input: EstimateInput): SendEstimate {
  const { startsAt, expiresAt, rows } = input;
  const end = Math.min(expiresAt ?? Number.POSITIVE_INFINITY, startsAt + HORIZON_MS);
  const sendsAt = input.messagesPerSecond > 0 ? startsAt + Math.ceil((rows / input.messagesPerSecond) * 1000) : startsAt;
  const done = rows <= 0 || sendsAt <= end;
  const wouldExpire = done ? 0 : Math.round(rows - (Math.max(0, end - startsAt) / 1000) * input.messagesPerSecond);
  return { startsAt, window: undefined, finishesAt: done ? sendsAt : undefined, wouldExpire, neverOpen: 0, lanes: [] };
}
