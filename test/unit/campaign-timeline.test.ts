import { describe, expect, it } from 'vitest';
import type { CampaignCounts, CampaignStatus } from '../../src/campaigns/campaign.js';
import { timelineSeries, type CampaignTimeline, type TimelineBucket } from '../../src/campaigns/report/campaign-timeline.js';
import { campaignCharts } from '../../src/dashboard/campaign-charts.js';
import { timelineBucket } from '../../src/redis/ledger/ledger-timeline.js';

const T = 1_900_000_020; // a minute's start, seconds
const bucket = (kind: TimelineBucket['kind'], start: number, delta: number, width = 60): TimelineBucket => ({ kind, start, width, delta });
const counts = (c: Partial<CampaignTimeline['counts']>): CampaignTimeline['counts'] => ({
  sent: 0,
  delivered: 0,
  read: 0,
  failed: 0,
  replied: 0,
  ...c,
});

describe('timelineSeries: the counters over time from the timeline’s buckets', () => {
  it('adds the buckets up in order of their ends, from a first point at the earliest start, the open bucket ending now', () => {
    const series = timelineSeries({
      buckets: [bucket('sent', T + 60, 3), bucket('sent', T, 2), bucket('failed', T + 60, 1), bucket('delivered', T + 60, 4)],
      counts: counts({ sent: 5, failed: 1, delivered: 4 }),
      now: (T + 90) * 1000 + 400,
    });
    expect(series).toEqual({
      t: [T, T + 60, T + 90],
      sent: [0, 2, 5],
      delivered: [0, 0, 4],
      read: [0, 0, 0],
      failed: [0, 0, 1],
    });
  });

  it('a negative change (a sent row a webhook failed) lowers the line; the last point is the counters', () => {
    const series = timelineSeries({
      buckets: [bucket('sent', T, 2), bucket('sent', T + 60, -1), bucket('failed', T + 60, 1)],
      counts: counts({ sent: 1, failed: 1 }),
      now: (T + 600) * 1000,
    });
    expect(series.sent).toEqual([0, 2, 1]);
    expect(series.failed).toEqual([0, 0, 1]);
  });

  it('what the buckets do not explain (counted before the timeline) is the first point, so the series still ends at the counters', () => {
    const series = timelineSeries({ buckets: [bucket('sent', T, 2)], counts: counts({ sent: 10, read: 3 }), now: (T + 30) * 1000 });
    expect(series.t).toEqual([T, T + 30]);
    expect(series.sent).toEqual([8, 10]);
    expect(series.read).toEqual([3, 3]);
  });

  it('mixes widths (minute, hour, day buckets) in order of their ends', () => {
    const hour = Math.floor((T + 7 * 3600) / 3600) * 3600;
    const series = timelineSeries({
      buckets: [bucket('sent', hour, 5, 3600), bucket('sent', T, 1), bucket('sent', T + 300, 2)],
      counts: counts({ sent: 8 }),
      now: (hour + 3600 + 10) * 1000,
    });
    expect(series.t).toEqual([T, T + 60, T + 360, hour + 3600]);
    expect(series.sent).toEqual([0, 1, 3, 8]);
  });

  it('without a bucket: the counters now, one point', () => {
    expect(timelineSeries({ buckets: [], counts: counts({ sent: 4 }), now: T * 1000 })).toEqual({
      t: [T],
      sent: [4],
      delivered: [0],
      read: [0],
      failed: [0],
    });
  });

  it('a bucket that opened this second ends a second after its start (x stays increasing)', () => {
    const series = timelineSeries({ buckets: [bucket('sent', T, 1)], counts: counts({ sent: 1 }), now: T * 1000 });
    expect(series.t).toEqual([T, T + 1]);
  });
});

describe('timelineBucket: a field of the timeline hash', () => {
  it('reads `<kind>:<start>:<width>` and its change', () => {
    expect(timelineBucket(`sent:${T}:60`, '3')).toEqual({ kind: 'sent', start: T, width: 60, delta: 3 });
    expect(timelineBucket(`failed:${T}:3600`, '-1')).toEqual({ kind: 'failed', start: T, width: 3600, delta: -1 });
  });

  it('leaves out what this version does not know', () => {
    expect(timelineBucket(`replied:${T}:60`, '1')).toBeUndefined();
    expect(timelineBucket('sent:x:60', '1')).toBeUndefined();
    expect(timelineBucket(`sent:${T}:60`, '1.5')).toBeUndefined();
  });
});

describe('campaignCharts: the funnel and the error bars', () => {
  const status = (c: Partial<CampaignCounts>): CampaignStatus =>
    ({
      id: 'c',
      counts: {
        total: 0,
        queued: 0,
        sending: 0,
        confirming: 0,
        held: 0,
        sent: 0,
        failed: 0,
        unknown: 0,
        rejected: 0,
        skipped: 0,
        cancelled: 0,
        expired: 0,
        delivered: 0,
        read: 0,
        ...c,
      },
    }) as CampaignStatus;

  it('queued is every row but those refused at ingest, then sent, delivered, read and replied', () => {
    const charts = campaignCharts(
      status({ total: 10, rejected: 2, sent: 6, failed: 1, queued: 1, delivered: 5, read: 3 }),
      { buckets: [], counts: counts({ sent: 6, delivered: 5, read: 3, failed: 1, replied: 2 }), now: T * 1000 },
      { codes: [{ status: 'failed', code: '131026', rows: 1, example: 'x' }], scanned: 10, complete: true, at: 0 },
    );
    expect(charts.funnel).toEqual([
      { stage: 'queued', rows: 8 },
      { stage: 'sent', rows: 6 },
      { stage: 'delivered', rows: 5 },
      { stage: 'read', rows: 3 },
      { stage: 'replied', rows: 2 },
    ]);
    // With its example detail: the page redraws its error table from the same figures as the bars.
    expect(charts.errors).toEqual([{ status: 'failed', code: '131026', rows: 1, example: 'x' }]);
    expect(charts.errorsSample).toBe(false);
  });

  it('no error bars while the errors are not counted (the page keeps those it has)', () => {
    const charts = campaignCharts(status({ total: 1 }), { buckets: [], counts: counts({}), now: T * 1000 }, undefined);
    expect(charts.errors).toBeUndefined();
    expect(JSON.parse(JSON.stringify(charts))).not.toHaveProperty('errors');
  });
});
