import { describe, expect, it } from 'vitest';
import type { StatusView } from '../../src/app/views/status-view.js';
import { watchJson } from '../../src/app/views/watch-view.js';
import { watchLine } from '../../src/cli/format.js';
import { AnsweredRate } from '../../src/cli/run/status-watch.js';

/** `campaign status --watch`'s figures: the rate from successive reads, the ETA, the line printed off a terminal. */
const view = (over: Partial<StatusView> = {}): StatusView => ({
  id: 'c1',
  name: null,
  sourceCampaign: null,
  audience: null,
  test: false,
  state: 'running',
  kind: 'template',
  template: 'order_update',
  language: 'en_US',
  priority: 'normal',
  total: 100,
  // Includes `sending`, as statusJson counts it.
  queued: 62,
  sending: 2,
  sent: 35,
  failed: 3,
  rejected: 1,
  skipped: 1,
  confirming: 0,
  held: 0,
  unknown: 0,
  cancelled: 0,
  delivered: 20,
  read: 5,
  replied: 0,
  clicked: null,
  createdAt: '2026-12-01T08:00:00.000Z',
  finishedAt: null,
  pausedReason: null,
  pausedAt: null,
  ingestInterrupted: false,
  purgedAt: null,
  expired: 0,
  startsAt: null,
  startDeadline: null,
  expiresAt: null,
  startedAt: '2026-12-01T08:00:01.000Z',
  cancelReason: null,
  window: null,
  waiting: null,
  nextWindowAt: null,
  ...over,
});

describe('status --watch figures', () => {
  it('the rate is rows answered per second since the oldest read in the last 5 s; null on the first read', () => {
    const rate = new AnsweredRate();
    expect(rate.add(0, 0)).toBeNull();
    expect(rate.add(1000, 80)).toBe(80);
    expect(rate.add(2000, 160)).toBe(80);
    for (let s = 3; s <= 10; s++) rate.add(s * 1000, 160 + (s - 2) * 20);
    // Seconds 5–10 answered 20 a second: the fast start has left the window.
    expect(rate.add(11_000, 340)).toBe(20);
    // Never negative (counts do not fall, but a retry moves failed rows back to queued).
    expect(rate.add(12_000, 100)).toBe(0);
  });

  it('carries the ETA it is given (src/campaigns/report/campaign-eta.ts), null when none; the rate to one decimal', () => {
    expect(watchJson(view(), 10, 7)).toMatchObject({ rate: 10, etaSeconds: 7 });
    expect(watchJson(view(), 3.333, 7).rate).toBe(3.3);
    expect(watchJson(view(), null, undefined)).toMatchObject({ rate: null, etaSeconds: null });
  });

  it('the plain line: time, state, progress, rate, ETA, counts, and why it is paused', () => {
    const line = watchLine(
      watchJson(view({ state: 'paused', pausedReason: '190: token expired' }), 12.5, undefined),
      Date.parse('2026-12-01T08:01:00Z'),
    );
    expect(line).toBe(
      '2026-12-01T08:01:00.000Z c1 paused  38% 38/100 rows done  12.5/s  ETA -  sent 35 (delivered 20, read 5)  failed 3  ' +
        'unknown 0  queued 62  confirming 0  rejected 1  skipped 1  paused: 190: token expired (`campaign resume c1` continues it)',
    );
  });
});
