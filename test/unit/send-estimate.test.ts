import { describe, expect, it } from 'vitest';
import { estimateSending } from '../../src/campaigns/feed/send-estimate.js';
import { parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { windowStatus } from '../../src/campaigns/report/window-status.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

const at = (iso: string) => Date.parse(iso);
const nineToEight = parseSendWindow('09:00-20:00', undefined, CLI_FIELD_NAMES);

describe('estimateSending', () => {
  it('without a window: the rows at the rate, from the start', () => {
    const estimate = estimateSending({
      startsAt: at('2026-07-01T10:00:00Z'),
      expiresAt: undefined,
      messagesPerSecond: 80,
      window: undefined,
      rows: 288_000,
      lanes: [],
    });
    expect(estimate.finishesAt).toBe(at('2026-07-01T11:00:00Z'));
    expect(estimate.wouldExpire).toBe(0);
  });

  it('with pacing off it finishes at the start', () => {
    const estimate = estimateSending({
      startsAt: at('2026-07-01T10:00:00Z'),
      expiresAt: undefined,
      messagesPerSecond: 0,
      window: undefined,
      rows: 1_000_000,
      lanes: [],
    });
    expect(estimate.finishesAt).toBe(at('2026-07-01T10:00:00Z'));
  });

  it('waits for each lane to open, and shares the rate between open lanes', () => {
    const estimate = estimateSending({
      // 06:00 UTC: 09:00 in Moscow (open), 02:00 in New York (opens 13:00 UTC).
      startsAt: at('2026-07-01T06:00:00Z'),
      expiresAt: undefined,
      messagesPerSecond: 10,
      window: nineToEight,
      rows: 0,
      lanes: [
        { zones: ['Europe/Moscow'], rows: 36_000 },
        { zones: ['America/New_York'], rows: 36_000 },
      ],
    });
    // Moscow alone at 10/s: one hour; New York from 13:00 UTC: one more hour.
    expect(estimate.lanes.map((l) => l.opensAt)).toEqual([at('2026-07-01T06:00:00Z'), at('2026-07-01T13:00:00Z')]);
    expect(estimate.finishesAt).toBe(at('2026-07-01T14:00:00Z'));
  });

  it('carries a lane over to the next day when its window closes', () => {
    const estimate = estimateSending({
      startsAt: at('2026-07-01T19:00:00Z'),
      expiresAt: undefined,
      messagesPerSecond: 1,
      window: nineToEight,
      rows: 0,
      lanes: [{ zones: ['UTC'], rows: 7200 }],
    });
    // One hour today (19:00-20:00), the second hour from 09:00 tomorrow.
    expect(estimate.finishesAt).toBe(at('2026-07-02T10:00:00Z'));
  });

  it('counts rows that would expire, and gives no finish then', () => {
    const estimate = estimateSending({
      startsAt: at('2026-07-01T19:00:00Z'),
      expiresAt: at('2026-07-01T21:00:00Z'),
      messagesPerSecond: 1,
      window: nineToEight,
      rows: 0,
      lanes: [{ zones: ['UTC'], rows: 7200 }],
    });
    expect(estimate.wouldExpire).toBe(3600);
    expect(estimate.finishesAt).toBeUndefined();
  });

  it('reports rows whose window never opens', () => {
    const estimate = estimateSending({
      startsAt: at('2026-07-01T00:00:00Z'),
      expiresAt: undefined,
      messagesPerSecond: 10,
      window: parseSendWindow('09:00-17:00', undefined, CLI_FIELD_NAMES),
      rows: 0,
      lanes: [
        { zones: ['Asia/Kamchatka', 'Europe/Kaliningrad'], rows: 5 },
        { zones: ['UTC'], rows: 10 },
      ],
    });
    expect(estimate.neverOpen).toBe(5);
    expect(estimate.finishesAt).toBeUndefined();
    expect(estimate.lanes[0]?.opensAt).toBeUndefined();
  });
});

describe('windowStatus', () => {
  it('counts rows waiting in closed lanes and says when the next one opens', () => {
    const lanes = [
      { lane: 0, zones: ['Europe/Moscow'], pending: 40 },
      { lane: 1, zones: ['America/New_York'], pending: 7 },
      { lane: 2, zones: ['America/Los_Angeles'], pending: 3 },
      { lane: 3, zones: ['Asia/Tokyo'], pending: 0 },
    ];
    // 06:00 UTC: Moscow open; New York opens 13:00 UTC, Los Angeles 16:00 UTC.
    const status = windowStatus(nineToEight, lanes, at('2026-07-01T06:00:00Z'));
    expect(status).toEqual({ window: '09:00-20:00 local, every day', waiting: 10, nextWindowAt: at('2026-07-01T13:00:00Z') });
  });

  it('has nothing waiting when every lane with rows is open', () => {
    expect(windowStatus(nineToEight, [{ lane: 0, zones: ['UTC'], pending: 5 }], at('2026-07-01T12:00:00Z'))).toMatchObject({
      waiting: 0,
      nextWindowAt: undefined,
    });
  });
});
