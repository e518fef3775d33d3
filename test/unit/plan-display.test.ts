import { describe, expect, it } from 'vitest';
import type { SendOutcome } from '../../src/campaigns/ingest/producer.js';
import { estimateSending } from '../../src/campaigns/feed/send-estimate.js';
import { parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { checkDisplayTimezone, displayZoneOf, formatInstant } from '../../src/campaigns/spec/display-zone.js';
import { summaryText } from '../../src/cli/format.js';
import { defaultRateCardFile } from '../../src/pricing/rate-card.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

/** `campaign send`'s plan in the operator's time: the zone they typed or chose, to the second, UTC beside it. */
const START = Date.parse('2026-12-01T08:00:00Z');

function outcome(estimate: SendOutcome['estimate']): SendOutcome {
  return {
    id: 'p1',
    rows: 2,
    valid: 2,
    queued: 2,
    rejected: 0,
    skipped: 0,
    byReason: {},
    delimiter: ',',
    reopened: 0,
    kept: 0,
    keptByStatus: {},
    optedOutBy: {},
    marketingCapUntil: undefined,
    schedule: {},
    interruptedAtRow: undefined,
    lanes: [],
    byCountry: {},
    byLanguage: {},
    frequencyCapped: 0,
    cost: null,
    costReason: 'no rate card is loaded',
    rateCard: null,
    dryRun: false,
    estimate,
    sendRate: 80,
    rejectsFile: undefined,
  };
}

describe('the zone a plan is shown in', () => {
  it("--display-timezone first, else the offset typed in a time option, else this machine's zone", () => {
    expect(
      displayZoneOf({ displayTimezone: 'europe/berlin', typed: ['2026-12-01T09:00:00+01:00'] }, CLI_FIELD_NAMES.displayTimezone),
    ).toEqual({
      kind: 'zone',
      name: 'Europe/Berlin',
    });
    expect(displayZoneOf({ typed: [undefined, '2026-12-01T09:00:00+05:30'] }, CLI_FIELD_NAMES.displayTimezone)).toEqual({
      kind: 'offset',
      minutes: 330,
    });
    expect(displayZoneOf({ typed: ['2026-12-01T09:00:00-03:00'] }, CLI_FIELD_NAMES.displayTimezone)).toEqual({
      kind: 'offset',
      minutes: -180,
    });
    expect(displayZoneOf({ typed: ['2026-12-01T08:00:00Z'] }, CLI_FIELD_NAMES.displayTimezone)).toEqual({ kind: 'offset', minutes: 0 });
    expect(displayZoneOf({}, CLI_FIELD_NAMES.displayTimezone)).toEqual({
      kind: 'zone',
      name: Intl.DateTimeFormat().resolvedOptions().timeZone,
    });
  });

  it('refuses a --display-timezone Intl does not know: OPTION_INVALID unless shaped like a zone name, else TIMEZONE_NOT_FOUND', () => {
    for (const [bad, code] of [
      ['Mars/Base', 'TIMEZONE_NOT_FOUND'],
      ['CET+1', 'TIMEZONE_NOT_FOUND'],
      ['+01:00', 'OPTION_INVALID'],
      ['', 'OPTION_INVALID'],
    ]) {
      expect(() => checkDisplayTimezone(bad!, CLI_FIELD_NAMES.displayTimezone), bad).toThrow(
        expect.objectContaining({ code, message: expect.stringContaining(`--display-timezone "${bad}"`) as unknown }),
      );
    }
  });

  it('formats to the second with the UTC time beside, the UTC date too when it is another day', () => {
    expect(formatInstant(START + 1500, { kind: 'offset', minutes: 60 })).toBe('2026-12-01 09:00:01 +01:00 (08:00:01 UTC)');
    expect(formatInstant(START, { kind: 'zone', name: 'America/New_York' })).toBe('2026-12-01 03:00:00 -05:00 (08:00:00 UTC)');
    // Daylight saving: New York is UTC-4 in July.
    expect(formatInstant(Date.parse('2026-07-01T08:00:00Z'), { kind: 'zone', name: 'America/New_York' })).toBe(
      '2026-07-01 04:00:00 -04:00 (08:00:00 UTC)',
    );
    expect(formatInstant(Date.parse('2026-12-01T23:30:00Z'), { kind: 'zone', name: 'Asia/Kolkata' })).toBe(
      '2026-12-02 05:00:00 +05:30 (2026-12-01 23:30:00 UTC)',
    );
    expect(formatInstant(START, { kind: 'offset', minutes: 0 })).toBe('2026-12-01 08:00:00 UTC');
    expect(formatInstant(START, { kind: 'zone', name: 'UTC' })).toBe('2026-12-01 08:00:00 UTC');
  });
});

describe('the plan lines of campaign send', () => {
  const plus1 = { kind: 'offset', minutes: 60 } as const;

  it('start and finish in the zone typed, UTC beside; "(at once)" only when it starts now', () => {
    const estimate = estimateSending({
      startsAt: START,
      expiresAt: undefined,
      messagesPerSecond: 80,
      window: undefined,
      rows: 288_000,
      lanes: [],
    });
    const scheduled = summaryText(outcome(estimate), 80, { zone: plus1, startsNow: false });
    expect(scheduled).toContain('\n  starts 2026-12-01 09:00:00 +01:00 (08:00:00 UTC) (scheduled)\n');
    expect(scheduled).toContain('\n  finishes about 2026-12-01 10:00:00 +01:00 (09:00:00 UTC) at SEND_RATE=80/s');
    expect(scheduled).not.toContain('at once');
    expect(summaryText(outcome(estimate), 80, { zone: plus1, startsNow: true })).toContain(
      '\n  starts 2026-12-01 09:00:00 +01:00 (08:00:00 UTC) (at once)\n',
    );
  });

  it('a start 45 s ahead is a scheduled start (by default too: no display given)', () => {
    const soon = Date.now() + 45_000;
    const text = summaryText(
      outcome(estimateSending({ startsAt: soon, expiresAt: undefined, messagesPerSecond: 80, window: undefined, rows: 2, lanes: [] })),
      80,
    );
    expect(text).toMatch(/\n {2}starts .* \(scheduled\)\n/);
    expect(text).not.toContain('at once');
  });

  it("the window with its days as given, and each zone's opening, in the zone shown", () => {
    const window = parseSendWindow('09:00-20:00', 'sat-sun', CLI_FIELD_NAMES);
    // 2026-12-01 is a Tuesday: Saturday's 09:00 UTC is 2026-12-05T09:00Z.
    const estimate = estimateSending({
      startsAt: START,
      expiresAt: undefined,
      messagesPerSecond: 80,
      window,
      rows: 0,
      lanes: [{ zones: ['Etc/UTC'], rows: 2 }],
    });
    const text = summaryText(outcome(estimate), 80, { zone: { kind: 'zone', name: 'Europe/Berlin' }, startsNow: true });
    expect(text).toContain('\n  sends 09:00-20:00 local, sat-sun of each recipient\n');
    expect(text).toContain('        2  Etc/UTC (window opens 2026-12-05 10:00:00 +01:00 (09:00:00 UTC))');
  });
});

describe('the cost lines of campaign send', () => {
  const estimate = estimateSending({ startsAt: START, expiresAt: undefined, window: undefined, messagesPerSecond: 80, rows: 2, lanes: [] });
  const display = { zone: { kind: 'zone', name: 'UTC' }, startsNow: true } as const;

  it('the total, each market, where the rates come from (the shipped card is named an example), and --max-cost', () => {
    const priced: SendOutcome = {
      ...outcome(estimate),
      cost: {
        currency: 'USD',
        total: 0.0743,
        byMarket: [
          { market: 'Brazil', category: 'marketing', messages: 1, rate: 0.0625, amount: 0.0625 },
          { market: 'India', category: 'marketing', messages: 1, rate: 0.0118, amount: 0.0118 },
        ],
      },
      costReason: null,
      rateCard: defaultRateCardFile(),
      maxCost: { amount: 0.05, refused: 'the estimated cost, 0.0743 USD, is above --max-cost 0.05 USD' },
    };
    const text = summaryText(priced, 80, display);
    expect(text).toContain(
      '\n  estimated cost: 0.0743 USD at most (Meta charges only delivered messages)\n' +
        `    rates from ${defaultRateCardFile()}: an EXAMPLE card, not Meta's rates (set RATE_CARD_FILE: docs/costs.md)\n` +
        '    Brazil: 1 marketing × 0.0625 = 0.0625 USD\n' +
        '    India: 1 marketing × 0.0118 = 0.0118 USD\n' +
        '  --max-cost 0.05: a send would refuse it (the estimated cost, 0.0743 USD, is above --max-cost 0.05 USD)',
    );
    const unlimited: SendOutcome = { ...priced, rateCard: '/etc/rates.csv' };
    delete unlimited.maxCost;
    expect(summaryText(unlimited, 80, display)).toContain('    rates from /etc/rates.csv\n');
  });

  it('says why there is no estimate', () => {
    expect(summaryText(outcome(estimate), 80, display)).toContain('\n  estimated cost: not known (no rate card is loaded)');
  });
});
