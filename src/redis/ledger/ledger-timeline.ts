import {
  TIMELINE_KINDS,
  type CampaignTimeline,
  type TimelineBucket,
  type TimelineLedger,
} from '../../campaigns/report/campaign-timeline.js';
import type { LedgerContext } from './ledger-context.js';

/**
 * The campaign hash's counters the timeline is read with: those it follows, rows with a reply (apply-inbound.lua), and rows
 * clicked (clicks/record-click.lua; the field exists only in a campaign that tracks clicks).
 */
const COUNTER_FIELDS = [...TIMELINE_KINDS, 'replied', 'clicked'].map((kind) => `n:${kind}`);

/**
 * A campaign's timeline (src/redis/lua/includes/timeline.lua) for its page's charts: one
 * MULTI of its hash's counters and its timeline hash (a few hundred fields at most; both in the
 * campaign's slot), so the counters and the buckets agree.
 */
export class LedgerTimeline implements TimelineLedger {
  constructor(private readonly context: LedgerContext) {}

  async timeline(campaignId: string): Promise<CampaignTimeline | undefined> {
    const keys = await this.context.keys(campaignId);
    const [replies, now] = await Promise.all([
      this.context.redis
        .multi()
        .hmget(keys.campaign, 'createdAt', ...COUNTER_FIELDS)
        .hgetall(keys.timeline)
        .exec(),
      this.context.clock.now(),
    ]);
    const [counters, buckets] = (replies ?? []).map(([error, value]) => {
      if (error !== null) throw error;
      return value;
    }) as [(string | null)[], Record<string, string>];
    if (counters[0] === null || counters[0] === undefined) return undefined;
    const counts = Object.fromEntries(
      [...TIMELINE_KINDS, 'replied'].map((kind, i) => [kind, Number(counters[i + 1] ?? 0)]),
    ) as CampaignTimeline['counts'];
    const clicked = counters[TIMELINE_KINDS.length + 2];
    if (clicked !== null && clicked !== undefined) counts.clicked = Number(clicked);
    return {
      buckets: Object.entries(buckets).flatMap(([field, value]) => timelineBucket(field, value) ?? []),
      counts,
      now,
    };
  }
}

/** A field of the timeline hash, `<kind>:<start>:<width>` → change, as a bucket; undefined for one this version does not know. */
export function timelineBucket(field: string, value: string): TimelineBucket | undefined {
  const match = /^([a-z]+):(\d+):(\d+)$/.exec(field);
  const kind = TIMELINE_KINDS.find((k) => k === match?.[1]);
  const delta = Number(value);
  if (match === null || kind === undefined || !Number.isInteger(delta)) return undefined;
  return { kind, start: Number(match[2]), width: Number(match[3]), delta };
}
