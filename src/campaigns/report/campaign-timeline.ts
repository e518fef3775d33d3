/** The counters a campaign's timeline follows (src/redis/lua/includes/timeline.lua). */
export const TIMELINE_KINDS = ['sent', 'delivered', 'read', 'failed'] as const;
export type TimelineKind = (typeof TIMELINE_KINDS)[number];

/** One bucket of the timeline: how much a counter moved in it (negative: a sent row turned failed). */
export interface TimelineBucket {
  kind: TimelineKind;
  /** Its start and width, seconds. */
  start: number;
  width: number;
  delta: number;
}

/** A campaign's timeline and the counters it follows, read together (one step, so they agree). */
export interface CampaignTimeline {
  buckets: TimelineBucket[];
  /**
   * The counters now, the rows with a reply (src/redis/lua/apply-inbound.lua) and, for a campaign that tracks clicks, the rows
   * whose link was clicked (src/redis/lua/clicks/record-click.lua): the funnel's last stages.
   */
  counts: Record<TimelineKind | 'replied', number> & { clicked?: number };
  /** The ledger's clock when read (ms). */
  now: number;
}

/** The ledger's read of one campaign's timeline (src/redis/ledger/ledger-timeline.ts); undefined for no such campaign. */
export interface TimelineLedger {
  timeline(campaignId: string): Promise<CampaignTimeline | undefined>;
}

/** The series a line chart draws: x in Unix seconds, and each counter's value at each x (uPlot's data layout). */
export interface TimelineSeries {
  t: number[];
  sent: number[];
  delivered: number[];
  read: number[];
  failed: number[];
}

/**
 * The counters over time: a first point at the start of the earliest bucket, then each
 * bucket's changes added up in order of their bucket's end (the bucket still open ends now),
 * one point per end. The first point holds what the buckets do not explain (zero, unless the
 * campaign was counted before it had a timeline), so the last point is always the counters
 * now. Without any bucket the series is the counters now, alone.
 */
export function timelineSeries(timeline: CampaignTimeline): TimelineSeries {
  const nowSeconds = Math.floor(timeline.now / 1000);
  const ends = new Map<number, Partial<Record<TimelineKind, number>>>();
  let earliest = nowSeconds;
  for (const b of timeline.buckets) {
    earliest = Math.min(earliest, b.start);
    const end = Math.max(b.start + 1, Math.min(b.start + b.width, nowSeconds));
    const point = ends.get(end) ?? {};
    point[b.kind] = (point[b.kind] ?? 0) + b.delta;
    ends.set(end, point);
  }
  const running = {} as Record<TimelineKind, number>;
  for (const kind of TIMELINE_KINDS)
    running[kind] = timeline.counts[kind] - timeline.buckets.reduce((n, b) => n + (b.kind === kind ? b.delta : 0), 0);
  const series: TimelineSeries = { t: [], sent: [], delivered: [], read: [], failed: [] };
  const push = (t: number) => {
    series.t.push(t);
    for (const kind of TIMELINE_KINDS) series[kind].push(running[kind]);
  };
  push(earliest);
  for (const t of [...ends.keys()].sort((a, b) => a - b)) {
    const point = ends.get(t) ?? {};
    for (const kind of TIMELINE_KINDS) running[kind] += point[kind] ?? 0;
    push(t);
  }
  return series;
}
