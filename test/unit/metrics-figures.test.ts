import type { ChainableCommander } from 'ioredis';
import { Counter, Registry } from 'prom-client';
import { describe, expect, it } from 'vitest';
import { ROW_STATUSES } from '../../src/campaigns/campaign.js';
import { CloudApiBadResponseError, CloudApiError, CloudApiTransportError } from '../../src/cloud-api/cloud-api-errors.js';
import { loadConfig } from '../../src/config/config.js';
import { AppError } from '../../src/errors/app-error.js';
import { SEND_LATENCY_BUCKETS, bucketOf } from '../../src/metrics/buckets.js';
import type { CampaignCounters } from '../../src/campaigns/report/campaign-counters.js';
import { STATUS_FIELDS, statusFields, statusOf } from '../../src/redis/ledger/ledger-reads.js';
import { CAMPAIGN_ROW_LABELS, campaignFigures, needsWindow, type EtaContext } from '../../src/metrics/campaign-figures.js';
import { parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { sendResultOf } from '../../src/metrics/send-observer.js';
import { StoredHistogram } from '../../src/metrics/stored-histogram.js';
import { CounterTally, HistogramTally } from '../../src/redis/metrics/metric-tallies.js';
import { histogramTotals, rateOf, rateWindow, sendTotals } from '../../src/redis/ledger/stored-totals.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

/** The pure parts of /metrics: no Redis (see test/integration/metrics-*.test.ts for that). */

const NOW = Date.parse('2026-12-01T08:00:00Z');
const HOUR = 3_600_000;
/** SEND_RATE 10/s, no window. */
const AT_10: EtaContext = { configuredRate: 10 };

/** A campaign as the ledger reads it from its hash's fields (`n:<label>`, `paused: '1'`, `window: '1'`, times in ms), at NOW. */
async function hmget(hash: Record<string, string | number | undefined>): Promise<CampaignCounters> {
  const fields = statusFields(STATUS_FIELDS.map((f) => (hash[f] === undefined ? null : String(hash[f]))));
  if (fields === undefined) throw new Error('a campaign hash has createdAt');
  return {
    status: await statusOf('c', fields, () => Promise.resolve(NOW)),
    phoneNumberId: '106540352242922',
    windowed: fields.window === '1',
  };
}

/** Records the commands a tally adds to a MULTI. */
function recordingTx(): { tx: ChainableCommander; calls: [string, ...(string | number)[]][] } {
  const calls: [string, ...(string | number)[]][] = [];
  const tx = {
    hincrby: (...args: (string | number)[]) => (calls.push(['hincrby', ...args]), tx),
    hincrbyfloat: (...args: (string | number)[]) => (calls.push(['hincrbyfloat', ...args]), tx),
  };
  return { tx: tx as unknown as ChainableCommander, calls };
}

describe('campaignFigures', () => {
  it('rows by every status, delivered and read, from the n:<status> counters', async () => {
    const figures = campaignFigures(
      await hmget({
        createdAt: NOW,
        total: 10,
        'n:queued': 3,
        'n:sent': 5,
        'n:confirming': 1,
        'n:rejected': 1,
        'n:delivered': 4,
        'n:read': 2,
      }),
      NOW,
      HOUR,
      AT_10,
    );
    expect([...(figures?.rows.keys() ?? [])]).toEqual([...ROW_STATUSES, 'delivered', 'read']);
    expect(Object.fromEntries(figures?.rows ?? [])).toMatchObject({
      queued: 3,
      sent: 5,
      confirming: 1,
      rejected: 1,
      delivered: 4,
      read: 2,
      failed: 0,
      expired: 0,
    });
    expect(ROW_STATUSES.reduce((sum, s) => sum + (figures?.rows.get(s) ?? 0), 0)).toBe(10);
    expect(CAMPAIGN_ROW_LABELS).toContain('confirming');
  });

  it('a campaign just created (no rows read yet) shows zeros', async () => {
    expect(campaignFigures(await hmget({ createdAt: NOW }), NOW, HOUR, AT_10)?.rows.get('queued')).toBe(0);
  });

  it(
    'ETA without a window: rows left over the rate achieved since the first feed, else at ' +
      'SEND_RATE; 0 once finished; none while paused or cancelled',
    async () => {
      const running = {
        createdAt: NOW,
        total: 100,
        'n:sent': 30,
        'n:failed': 5,
        'n:unknown': 5,
        'n:rejected': 10,
        'n:queued': 45,
        'n:sending': 5,
        startedAt: NOW - 20_000,
      };
      // 40 answered by a request in 20 s = 2/s; 50 left (queued + sending) → 25 s. Rejected rows took no sending time.
      expect(campaignFigures(await hmget(running), NOW, HOUR, AT_10)?.etaSeconds).toBe(25);
      expect(campaignFigures(await hmget({ ...running, finishedAt: NOW - 1000 }), NOW, HOUR, AT_10)?.etaSeconds).toBe(0);
      expect(campaignFigures(await hmget({ ...running, paused: '1' }), NOW, HOUR, AT_10)?.etaSeconds).toBeUndefined();
      expect(campaignFigures(await hmget({ ...running, cancelled: '1' }), NOW, HOUR, AT_10)?.etaSeconds).toBeUndefined();
      // Not started, or nothing answered yet: 50 rows at SEND_RATE 10/s; none with pacing off.
      expect(campaignFigures(await hmget({ ...running, startedAt: undefined }), NOW, HOUR, AT_10)?.etaSeconds).toBe(5);
      expect(campaignFigures(await hmget({ ...running, 'n:sent': 0, 'n:failed': 0, 'n:unknown': 0 }), NOW, HOUR, AT_10)?.etaSeconds).toBe(
        5,
      );
      expect(
        campaignFigures(await hmget({ ...running, startedAt: undefined }), NOW, HOUR, { configuredRate: 0 })?.etaSeconds,
      ).toBeUndefined();
      // Scheduled an hour ahead: from its start.
      expect(campaignFigures(await hmget({ ...running, startedAt: undefined, startsAt: NOW + HOUR }), NOW, HOUR, AT_10)?.etaSeconds).toBe(
        3600 + 5,
      );
      // An expiry before the end: the campaign ends then.
      expect(campaignFigures(await hmget({ ...running, expiresAt: NOW + 10_000 }), NOW, HOUR, AT_10)?.etaSeconds).toBe(10);
    },
  );

  it('ETA with a window: from its window and lanes at SEND_RATE, at least the time to the next opening; none when not read', async () => {
    // 08:00 UTC: a 12:00-13:00 window in UTC opens in 4 hours.
    const window = parseSendWindow('12:00-13:00', undefined, CLI_FIELD_NAMES);
    const hash = { createdAt: NOW, total: 20, 'n:queued': 20, startedAt: NOW - 60_000, 'n:sent': 0, window: '1' };
    expect(needsWindow(await hmget(hash))).toBe(true);
    expect(needsWindow(await hmget({ ...hash, paused: '1' }))).toBe(false);
    expect(needsWindow(await hmget({ ...hash, window: undefined }))).toBe(false);
    const eta = campaignFigures(await hmget(hash), NOW, HOUR, {
      configuredRate: 10,
      windowed: { window, backlogs: [{ lane: 0, zones: ['Etc/UTC'], pending: 20 }] },
    })?.etaSeconds;
    expect(eta).toBe(4 * 3600 + 2);
    expect(campaignFigures(await hmget(hash), NOW, HOUR, AT_10)?.etaSeconds).toBeUndefined();
  });

  it('retention: a finished campaign is shown until METRICS_RETENTION_HOURS after it finished', async () => {
    const finished = await hmget({ createdAt: NOW - 2 * HOUR, total: 1, 'n:sent': 1, finishedAt: NOW - HOUR });
    expect(campaignFigures(finished, NOW - 1, HOUR, AT_10)).toBeDefined();
    expect(campaignFigures(finished, NOW, HOUR, AT_10)).toBeUndefined();
    // A running campaign is never dropped, however old.
    expect(campaignFigures(await hmget({ createdAt: NOW - 1000 * HOUR, total: 1, 'n:queued': 1 }), NOW, HOUR, AT_10)).toBeDefined();
  });
});

describe('stored totals', () => {
  it('the rate window is the 10 seconds before the last complete one', () => {
    const second = Math.floor(NOW / 1000);
    expect(rateWindow(NOW + 999)).toEqual(Array.from({ length: 10 }, (_, i) => second - 11 + i));
    expect(rateOf(['10', null, '30', ...Array<string | null>(7).fill('0')])).toBe(4);
  });

  it('histogram hashes become cumulative buckets; a bound of another version counts from where it lies', () => {
    const totals = histogramTotals({ '0.05': '2', '1': '3', '0.07': '1', '+Inf': '4', sum: '123.5', count: '10' }, SEND_LATENCY_BUCKETS);
    const at = (le: number) => totals.buckets.find((b) => b.le === le)?.count;
    expect(at(0.01)).toBe(0);
    expect(at(0.05)).toBe(2);
    expect(at(0.1)).toBe(3);
    expect(at(1)).toBe(6);
    expect(at(30)).toBe(6);
    expect(totals).toMatchObject({ sum: 123.5, count: 10 });
  });

  it('the sends hash splits into number and result', () => {
    expect(sendTotals({ '106|accepted': '7', '106|131026': '2' })).toEqual([
      ['106', 'accepted', 7],
      ['106', '131026', 2],
    ]);
  });

  it('bucketOf: the first bound at or above the value', () => {
    expect(bucketOf([1, 2, 5], 0)).toBe('1');
    expect(bucketOf([1, 2, 5], 2)).toBe('2');
    expect(bucketOf([1, 2, 5], 2.01)).toBe('5');
    expect(bucketOf([1, 2, 5], 6)).toBe('+Inf');
  });
});

describe('tallies', () => {
  it('counters and histograms are written as HINCRBY/HINCRBYFLOAT; absorb puts a failed flush back', () => {
    const counts = new CounterTally();
    counts.add('a');
    counts.add('a', 2);
    counts.add('b');
    const latency = new HistogramTally([0.1, 1]);
    latency.observe(0.05);
    latency.observe(0.5);
    latency.observe(-1); // a clock step backwards: 0, not a negative sum
    const { tx, calls } = recordingTx();
    counts.writeTo(tx, 'k');
    latency.writeTo(tx, 'h');
    expect(calls).toEqual([
      ['hincrby', 'k', 'a', 3],
      ['hincrby', 'k', 'b', 1],
      ['hincrby', 'h', '0.1', 2],
      ['hincrby', 'h', '1', 1],
      ['hincrbyfloat', 'h', 'sum', 0.55],
      ['hincrby', 'h', 'count', 3],
    ]);
    const next = new CounterTally();
    next.add('a');
    next.absorb(counts);
    expect([...next.entries()]).toEqual([
      ['a', 4],
      ['b', 1],
    ]);
    // An empty histogram writes nothing.
    const empty = recordingTx();
    new HistogramTally([1]).writeTo(empty.tx, 'h');
    expect(empty.calls).toEqual([]);
  });
});

describe('sendResultOf: the result label is the code the ledger records', () => {
  it.each([
    [new CloudApiError({ httpStatus: 400, metaCode: 131026 }), '131026'],
    [new CloudApiError({ httpStatus: 503 }), 'HTTP_503'],
    [new CloudApiTransportError('timeout', new Error('t')), 'TRANSPORT_TIMEOUT'],
    [new CloudApiTransportError('connection-lost', new Error('t')), 'TRANSPORT_CONNECTION_LOST'],
    [new CloudApiTransportError('connect', new Error('t')), 'TRANSPORT_CONNECT'],
    [new CloudApiBadResponseError(200, 'no messages[]'), 'CLOUD_API_BAD_RESPONSE'],
    [new AppError('INTERNAL_ERROR', 'x'), 'ERROR'],
  ])('%s → %s', (error, label) => {
    expect(sendResultOf(error)).toBe(label);
  });
});

describe('StoredHistogram', () => {
  it('renders stored totals in the exposition layout of a prom-client histogram', async () => {
    const registry = new Registry();
    const stored = new StoredHistogram({ name: 'x_seconds', help: 'x', buckets: [0.1, 1], registry });
    new Counter({ name: 'y_total', help: 'y', registers: [registry] }).inc(3);
    stored.setTotals({
      buckets: [
        { le: 0.1, count: 2 },
        { le: 1, count: 5 },
      ],
      sum: 2.5,
      count: 6,
    });
    const text = await registry.metrics();
    expect(text).toContain(
      [
        '# HELP x_seconds x',
        '# TYPE x_seconds histogram',
        'x_seconds_bucket{le="0.1"} 2',
        'x_seconds_bucket{le="1"} 5',
        'x_seconds_bucket{le="+Inf"} 6',
        'x_seconds_sum 2.5',
        'x_seconds_count 6',
      ].join('\n'),
    );
    expect(text).toContain('y_total 3');
    expect((await stored.get()).values).toHaveLength(5);
  });
});

describe('METRICS_RETENTION_HOURS', () => {
  it('default 24 h; hours with fractions; refused below 0', () => {
    expect(loadConfig({}).metricsRetentionMs).toBe(24 * HOUR);
    expect(loadConfig({ METRICS_RETENTION_HOURS: '0.5' }).metricsRetentionMs).toBe(HOUR / 2);
    expect(loadConfig({ METRICS_RETENTION_HOURS: '0' }).metricsRetentionMs).toBe(0);
    expect(() => loadConfig({ METRICS_RETENTION_HOURS: '-1' })).toThrow(/METRICS_RETENTION_HOURS: must be a number of hours >= 0/);
    expect(() => loadConfig({ METRICS_RETENTION_HOURS: 'a day' })).toThrow(/METRICS_RETENTION_HOURS/);
  });
});
