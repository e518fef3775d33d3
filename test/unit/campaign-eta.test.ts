import { describe, expect, it } from 'vitest';
import { campaignEtaSeconds, type EtaInput } from '../../src/campaigns/report/campaign-eta.js';
import { nextOpening, parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

/** A fixed clock: 21:00 UTC, so a 09:00-20:00 window in UTC is closed for 12 hours. */
const NOW = Date.parse('2026-07-01T21:00:00Z');
const HOUR = 3600;
const nineToEight = parseSendWindow('09:00-20:00', undefined, CLI_FIELD_NAMES);

const input = (over: Partial<EtaInput> = {}): EtaInput => ({
  now: NOW,
  state: 'running',
  startsAt: undefined,
  expiresAt: undefined,
  window: undefined,
  rowsLeft: 600,
  backlogs: [],
  measuredRate: undefined,
  configuredRate: 10,
  ...over,
});

describe('campaignEtaSeconds: the plan `send` prints, from what is left now', () => {
  it('without a window: the rows left at the rate achieved, else at the configured rate', () => {
    expect(campaignEtaSeconds(input({ measuredRate: 20 }))).toBe(30);
    expect(campaignEtaSeconds(input())).toBe(60);
    // Pacing off and nothing measured: nothing to say.
    expect(campaignEtaSeconds(input({ configuredRate: 0 }))).toBeUndefined();
    expect(campaignEtaSeconds(input({ configuredRate: 0, measuredRate: 100 }))).toBe(6);
  });

  it('0 once completed or nothing is left; none while paused or cancelled', () => {
    expect(campaignEtaSeconds(input({ state: 'completed', rowsLeft: 0 }))).toBe(0);
    expect(campaignEtaSeconds(input({ rowsLeft: 0 }))).toBe(0);
    expect(campaignEtaSeconds(input({ state: 'paused' }))).toBeUndefined();
    expect(campaignEtaSeconds(input({ state: 'cancelled' }))).toBeUndefined();
  });

  it('a scheduled campaign counts from its start', () => {
    expect(campaignEtaSeconds(input({ state: 'scheduled', startsAt: NOW + 2 * HOUR * 1000 }))).toBe(2 * HOUR + 60);
    // A start already behind (not fed yet) counts from now.
    expect(campaignEtaSeconds(input({ startsAt: NOW - 5000 }))).toBe(60);
  });

  it('a windowed campaign whose window is closed now: at least the time to the next opening, at the configured rate', () => {
    const backlogs = [{ lane: 0, zones: ['Etc/UTC'], pending: 600 }];
    const opensAt = nextOpening(nineToEight, ['Etc/UTC'], NOW) ?? 0;
    expect(opensAt).toBe(Date.parse('2026-07-02T09:00:00Z'));
    const eta = campaignEtaSeconds(input({ window: nineToEight, backlogs }));
    expect(eta).toBeGreaterThanOrEqual((opensAt - NOW) / 1000);
    // 600 rows at 10/s once it opens: one more minute.
    expect(eta).toBe(12 * HOUR + 60);
    // The measured average counts the closed hours: it is not used for a windowed campaign.
    expect(campaignEtaSeconds(input({ window: nineToEight, backlogs, measuredRate: 0.01 }))).toBe(12 * HOUR + 60);
    // Pacing off: the opening itself.
    expect(campaignEtaSeconds(input({ window: nineToEight, backlogs, configuredRate: 0 }))).toBe(12 * HOUR);
  });

  it('rows already fed go out now, whatever the windows; waiting lanes follow them', () => {
    // 100 rows left, none in a backlog: all fed, 10 s at 10/s.
    expect(campaignEtaSeconds(input({ window: nineToEight, rowsLeft: 100, backlogs: [{ lane: 0, zones: ['Etc/UTC'], pending: 0 }] }))).toBe(
      10,
    );
    // Honolulu's window is open (11:00 local): its rows follow the 100 fed ones.
    const open = campaignEtaSeconds(
      input({ window: nineToEight, rowsLeft: 700, backlogs: [{ lane: 0, zones: ['Pacific/Honolulu'], pending: 600 }] }),
    );
    expect(open).toBe(10 + 60);
  });

  it('rows that would expire before their turn: the campaign ends at its expiry', () => {
    const backlogs = [{ lane: 0, zones: ['Etc/UTC'], pending: 600 }];
    expect(campaignEtaSeconds(input({ window: nineToEight, backlogs, expiresAt: NOW + 2 * HOUR * 1000 }))).toBe(2 * HOUR);
    // Without a window too: 600 rows at 1/s take 10 minutes, the expiry comes after 5.
    expect(campaignEtaSeconds(input({ configuredRate: 1, expiresAt: NOW + 300_000 }))).toBe(300);
  });

  it('rows whose window never opens: no ETA without an expiry; the expiry with one', () => {
    // UTC+14 and UTC-11 are 25 hours apart: a one-hour window never opens in both.
    const tenToEleven = parseSendWindow('10:00-11:00', undefined, CLI_FIELD_NAMES);
    const backlogs = [{ lane: 0, zones: ['Pacific/Kiritimati', 'Pacific/Pago_Pago'], pending: 5 }];
    expect(campaignEtaSeconds(input({ window: tenToEleven, rowsLeft: 5, backlogs }))).toBeUndefined();
    expect(campaignEtaSeconds(input({ window: tenToEleven, rowsLeft: 5, backlogs, expiresAt: NOW + HOUR * 1000 }))).toBe(HOUR);
  });
});
