import { describe, expect, it } from 'vitest';
import type { CampaignStatus } from '../../src/campaigns/campaign.js';
import { parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { campaignView } from '../../src/dashboard/campaign-view.js';
import { utcTime } from '../../src/dashboard/browser/utc-time.js';
import { duration, percent, time } from '../../src/dashboard/display-format.js';
import { extrasOf, statusOf, tallyOf } from './dashboard-fixtures.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

describe('campaignView', () => {
  it('a running campaign: progress of the rows sent, its number’s rate, ETA, counts with delivered and read', () => {
    const status = statusOf(
      'c1',
      { state: 'running', startedAt: 1 },
      { total: 2000, queued: 1490, sending: 10, sent: 450, delivered: 400, read: 120, failed: 30, rejected: 15, skipped: 5 },
    );
    const view = campaignView(
      status,
      extrasOf({ etaSeconds: 75.4, numberRate: 19.96, tally: tallyOf([{ status: 'failed', code: '131026', rows: 30, example: '' }]) }),
    );
    // 450 sent and 30 failed of the 1,980 rows it took to send (2,000 read, 15 rejected, 5 skipped).
    expect(view.progress).toBe(24.2);
    expect(view.fields).toMatchObject({
      state: 'running',
      progress: '24.2%',
      total: '2,000',
      toSend: '1,500',
      sent: '450',
      delivered: '400',
      read: '120',
      failed: '30',
      rejected: '15',
      skipped: '5',
      rate: '20.0/s',
      eta: '1m 15s',
      errors: '131026 ×30',
    });
  });

  it('no rate or ETA unless it is running; `done` once completed; the pause reason as its note', () => {
    const paused = campaignView(
      statusOf('c', { state: 'paused', pausedReason: '190: token expired' }, { total: 10, queued: 5 }),
      extrasOf({ etaSeconds: 10, numberRate: 5 }),
    );
    expect(paused.fields).toMatchObject({ rate: '–', eta: '–', stateNote: '190: token expired' });
    const completed = campaignView(
      statusOf('c', { state: 'completed', finishedAt: 5 }, { total: 10, sent: 10 }),
      extrasOf({ etaSeconds: 0, numberRate: 3 }),
    );
    expect(completed.fields).toMatchObject({ rate: '–', eta: 'done', progress: '100%' });
    const scheduled = campaignView(
      statusOf('c', { state: 'scheduled', startsAt: Date.UTC(2027, 0, 2, 9) }, { total: 10, queued: 10 }),
      extrasOf(),
    );
    expect(scheduled.fields.stateNote).toBe('starts 2027-01-02 09:00:00 UTC');
    // A scheduled campaign's ETA counts from its start.
    expect(
      campaignView(
        statusOf('c', { state: 'scheduled', startsAt: Date.UTC(2027, 0, 2, 9) }, { total: 10, queued: 10 }),
        extrasOf({ etaSeconds: 3605 }),
      ).fields.eta,
    ).toBe('1h 00m 05s');
  });

  it('progress counts the rows sent: a cancelled or expired row is not progress, nor is a row refused at ingest', () => {
    const progressOf = (counts: Partial<CampaignStatus['counts']>, state: CampaignStatus['state'] = 'cancelled') =>
      campaignView(statusOf('c', { state }, counts), extrasOf()).fields.progress;
    expect(progressOf({ total: 3000, cancelled: 3000 })).toBe('0%');
    expect(progressOf({ total: 3000, sent: 600, delivered: 500, failed: 30, unknown: 3, cancelled: 2367 })).toBe('21.1%');
    expect(progressOf({ total: 100, sent: 60, expired: 40 }, 'completed')).toBe('60%');
    // Every row it took to send was sent: done, whatever was refused when the file was read.
    expect(progressOf({ total: 400, sent: 390, failed: 6, rejected: 3, skipped: 1 }, 'completed')).toBe('100%');
    expect(progressOf({ total: 10, queued: 8, sending: 1, held: 1 }, 'running')).toBe('0%');
  });

  it('a windowed campaign: its window always, the rows waiting for it and the next opening when they were read', () => {
    const window = parseSendWindow('09:00-20:00', 'sat-sun', CLI_FIELD_NAMES);
    const status = statusOf('w', { state: 'running' }, { total: 30, queued: 30 });
    const waiting = campaignView(
      status,
      extrasOf({ window, windowStatus: { window: 'x', waiting: 25, nextWindowAt: Date.UTC(2026, 11, 5, 9) } }),
    );
    expect(waiting.fields).toMatchObject({
      window: '09:00-20:00 local, sat-sun of each recipient',
      waiting: '25',
      nextWindow: '2026-12-05 09:00:00 UTC',
    });
    expect(
      campaignView(status, extrasOf({ window, windowStatus: { window: 'x', waiting: 5, nextWindowAt: undefined } })).fields.nextWindow,
    ).toBe('never (their zones are too far apart)');
    expect(
      campaignView(status, extrasOf({ window, windowStatus: { window: 'x', waiting: 0, nextWindowAt: undefined } })).fields,
    ).toMatchObject({ waiting: '0', nextWindow: '–' });
    // The list reads no lanes; a campaign without a window shows none.
    expect(campaignView(status, extrasOf({ window })).fields).toMatchObject({ waiting: '–', nextWindow: '–' });
    expect(campaignView(status, extrasOf()).fields).toMatchObject({ window: '–', waiting: '–', nextWindow: '–' });
  });

  it('errors by code: counting… until counted, the three largest then how many more, and "sample" for a capped count', () => {
    const status = statusOf('c', {}, { total: 10, failed: 6, unknown: 1, rejected: 3 });
    expect(campaignView(status, extrasOf()).fields.errors).toBe('counting…');
    const codes = [
      { status: 'failed' as const, code: '131026', rows: 3, example: '' },
      { status: 'rejected' as const, code: 'PHONE_INVALID', rows: 3, example: '' },
      { status: 'failed' as const, code: '131047', rows: 2, example: '' },
      { status: 'unknown' as const, code: 'TRANSPORT_timeout', rows: 1, example: '' },
      { status: 'failed' as const, code: '131000', rows: 1, example: '' },
    ];
    expect(campaignView(status, extrasOf({ tally: tallyOf(codes) })).fields.errors).toBe(
      '131026 ×3 · 131047 ×2 · TRANSPORT_timeout ×1 · +1 more',
    );
    expect(campaignView(status, extrasOf({ tally: tallyOf(codes.slice(0, 1), false) })).fields.errors).toBe('131026 ×3 (sample)');
    expect(campaignView(statusOf('c', {}, { total: 10, rejected: 3 }), extrasOf({ tally: tallyOf(codes.slice(1, 2)) })).fields.errors).toBe(
      '–',
    );
  });
});

describe('display formats', () => {
  it('times in UTC with the zone, the same in the server and in the pages’ scripts', () => {
    const at = Date.UTC(2026, 10, 29, 14, 5, 9, 750);
    expect(time(at)).toBe('2026-11-29 14:05:09 UTC');
    expect([utcTime(at), utcTime(new Date(at).toISOString()), utcTime('2026-11-29T15:05:09.750+01:00')]).toEqual(Array(3).fill(time(at)));
    expect([time(undefined), utcTime('not a time')]).toEqual(['–', '–']);
  });

  it('durations and percentages', () => {
    expect([duration(4), duration(65), duration(3725), duration(-3)]).toEqual(['4s', '1m 05s', '1h 02m 05s', '0s']);
    expect([percent(0, 0), percent(1, 3), percent(9999, 10000), percent(10, 10)]).toEqual([0, 33.3, 99.9, 100]);
  });
});
