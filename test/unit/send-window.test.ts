import { describe, expect, it } from 'vitest';
import { describeDays, describeWindow, laneOpen, nextOpening, openLanes, parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { AppError } from '../../src/errors/app-error.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

const at = (iso: string) => Date.parse(iso);
const nineToEight = parseSendWindow('09:00-20:00', undefined, CLI_FIELD_NAMES);

describe('parseSendWindow', () => {
  it('reads hours and days', () => {
    expect(parseSendWindow('09:00-20:00', 'mon-fri', CLI_FIELD_NAMES)).toEqual({ start: 540, end: 1200, days: [1, 2, 3, 4, 5] });
    expect(parseSendWindow('22:00-06:30', 'sat,sun', CLI_FIELD_NAMES)).toEqual({ start: 1320, end: 390, days: [0, 6] });
    expect(parseSendWindow('08:00-24:00', 'fri-mon', CLI_FIELD_NAMES).days).toEqual([0, 1, 5, 6]);
    expect(parseSendWindow('9:15 - 17:45', 'Monday-Wednesday', CLI_FIELD_NAMES)).toEqual({ start: 555, end: 1065, days: [1, 2, 3] });
  });

  it.each([
    ['9-17', undefined],
    ['09:00-09:00', undefined],
    ['00:00-00:00', undefined],
    ['25:00-26:00', undefined],
    ['09:60-10:00', undefined],
    ['24:30-10:00', undefined],
    ['09:00-20:00', 'weekdays'],
    ['09:00-20:00', 'mon-'],
    ['09:00-20:00', 'm-f'],
  ])('refuses --window %s --days %s with OPTION_INVALID', (window, days) => {
    let error: unknown;
    try {
      parseSendWindow(window, days, CLI_FIELD_NAMES);
    } catch (caught) {
      error = caught;
    }
    expect(error).toBeInstanceOf(AppError);
    expect((error as AppError).code).toBe('OPTION_INVALID');
    expect((error as AppError).message).toMatch(days === undefined ? /--window/ : /--days/);
  });

  it('names an empty window as such (start equals end), not as a format mistake', () => {
    for (const window of ['09:00-09:00', '00:00-00:00', '9:00-09:00']) {
      expect(() => parseSendWindow(window, undefined, CLI_FIELD_NAMES), window).toThrow(
        expect.objectContaining({
          code: 'OPTION_INVALID',
          message: expect.stringMatching(
            /^--window "[^"]+" is empty: it starts and ends at \d\d:\d\d, so no row would ever be sent/,
          ) as unknown,
        }),
      );
    }
    expect(() => parseSendWindow('09:00-09:00', undefined, CLI_FIELD_NAMES)).toThrow(
      /give an end after the start, e\.g\. 09:00-20:00, or 00:00-24:00 for the whole day/,
    );
    // A malformed window still gets the format message.
    expect(() => parseSendWindow('9-17', undefined, CLI_FIELD_NAMES)).toThrow(/give the local hours as HH:MM-HH:MM/);
    expect(() => parseSendWindow('9-17', undefined, CLI_FIELD_NAMES)).not.toThrow(/is empty/);
  });

  it('describes itself as given, its days normalised into runs around the week', () => {
    expect(describeWindow(parseSendWindow('09:00-20:00', 'mon-fri', CLI_FIELD_NAMES))).toBe('09:00-20:00 local, mon-fri');
    expect(describeWindow(nineToEight)).toBe('09:00-20:00 local, every day');
    expect(describeWindow(parseSendWindow('22:00-06:00', 'sat-sun', CLI_FIELD_NAMES))).toBe('22:00-06:00 local, sat-sun');
  });

  it.each([
    ['sat-sun', 'sat-sun'],
    ['sun,sat', 'sat-sun'],
    ['fri-mon', 'fri-mon'],
    ['mon-fri', 'mon-fri'],
    ['mon,wed,sat', 'mon,wed,sat'],
    ['sat,wed,mon', 'mon,wed,sat'],
    ['mon,tue,wed', 'mon-wed'],
    ['sun', 'sun'],
    ['wed,sun', 'wed,sun'],
    ['thu-tue', 'thu-tue'],
    ['mon-sun', 'every day'],
    ['fri-mon,wed', 'wed,fri-mon'],
  ])('--days %s is shown as %s', (days, shown) => {
    expect(describeDays(parseSendWindow('09:00-20:00', days, CLI_FIELD_NAMES).days)).toBe(shown);
  });
});

describe('laneOpen', () => {
  it('follows the local time of the zone, daylight saving included', () => {
    // 2026-07-01 13:30 UTC = 09:30 in New York (EDT, UTC-4), 06:30 in Los Angeles.
    expect(laneOpen(nineToEight, ['America/New_York'], at('2026-07-01T13:30:00Z'))).toBe(true);
    expect(laneOpen(nineToEight, ['America/Los_Angeles'], at('2026-07-01T13:30:00Z'))).toBe(false);
    // 2026-01-15 13:30 UTC = 08:30 in New York (EST, UTC-5): not yet.
    expect(laneOpen(nineToEight, ['America/New_York'], at('2026-01-15T13:30:00Z'))).toBe(false);
    // Half-hour zone: 03:30 UTC = 09:00 in Kolkata.
    expect(laneOpen(nineToEight, ['Asia/Kolkata'], at('2026-07-01T03:30:00Z'))).toBe(true);
    expect(laneOpen(nineToEight, ['Asia/Kolkata'], at('2026-07-01T03:29:00Z'))).toBe(false);
  });

  it('ends before the end minute', () => {
    expect(laneOpen(nineToEight, ['UTC'], at('2026-07-01T19:59:59Z'))).toBe(true);
    expect(laneOpen(nineToEight, ['UTC'], at('2026-07-01T20:00:00Z'))).toBe(false);
  });

  it('opens only on the chosen local weekdays', () => {
    const weekdays = parseSendWindow('09:00-20:00', 'mon-fri', CLI_FIELD_NAMES);
    // Saturday 2026-07-04 10:00 in Berlin.
    expect(laneOpen(weekdays, ['Europe/Berlin'], at('2026-07-04T08:00:00Z'))).toBe(false);
    // Friday 2026-07-03 10:00 in Berlin.
    expect(laneOpen(weekdays, ['Europe/Berlin'], at('2026-07-03T08:00:00Z'))).toBe(true);
    // Friday 23:30 UTC is already Saturday in Tokyo.
    expect(laneOpen(parseSendWindow('00:00-24:00', 'mon-fri', CLI_FIELD_NAMES), ['Asia/Tokyo'], at('2026-07-03T23:30:00Z'))).toBe(false);
  });

  it('gives the hours after midnight of a window across midnight to the day it started', () => {
    const nights = parseSendWindow('22:00-06:00', 'fri', CLI_FIELD_NAMES);
    expect(laneOpen(nights, ['UTC'], at('2026-07-03T23:00:00Z'))).toBe(true); // Friday night
    expect(laneOpen(nights, ['UTC'], at('2026-07-04T05:00:00Z'))).toBe(true); // Saturday early: Friday's window
    expect(laneOpen(nights, ['UTC'], at('2026-07-05T05:00:00Z'))).toBe(false); // Sunday early: Saturday's, not chosen
    expect(laneOpen(nights, ['UTC'], at('2026-07-03T21:59:00Z'))).toBe(false);
  });

  it('opens a lane of several zones only when every one of them is inside the window', () => {
    const both = ['America/Chicago', 'America/New_York'];
    expect(laneOpen(nineToEight, both, at('2026-07-01T13:30:00Z'))).toBe(false); // 08:30 in Chicago
    expect(laneOpen(nineToEight, both, at('2026-07-01T14:00:00Z'))).toBe(true); // 09:00 in Chicago
    expect(laneOpen(nineToEight, both, at('2026-07-01T23:59:00Z'))).toBe(true); // 18:59 Chicago, 19:59 New York
    expect(laneOpen(nineToEight, both, at('2026-07-02T00:00:00Z'))).toBe(false); // 20:00 in New York
    expect(laneOpen(nineToEight, [], at('2026-07-01T14:00:00Z'))).toBe(false);
  });

  it('lists the open lanes by number', () => {
    expect(openLanes(nineToEight, [['America/Los_Angeles'], ['America/New_York'], ['Asia/Tokyo']], at('2026-07-01T13:30:00Z'))).toEqual([
      1,
    ]);
  });
});

describe('nextOpening', () => {
  it('is the first minute the window opens', () => {
    expect(nextOpening(nineToEight, ['America/New_York'], at('2026-07-01T02:17:31Z'))).toBe(at('2026-07-01T13:00:00Z'));
    expect(nextOpening(nineToEight, ['Asia/Kolkata'], at('2026-07-01T20:00:00Z'))).toBe(at('2026-07-02T03:30:00Z'));
  });

  it('is now when the window is open', () => {
    expect(nextOpening(nineToEight, ['UTC'], at('2026-07-01T12:00:05Z'))).toBe(at('2026-07-01T12:00:05Z'));
  });

  it('skips days not chosen', () => {
    // Saturday 2026-07-04 in Berlin: the next opening is Monday 09:00 CEST.
    expect(nextOpening(parseSendWindow('09:00-20:00', 'mon-fri', CLI_FIELD_NAMES), ['Europe/Berlin'], at('2026-07-04T08:00:00Z'))).toBe(
      at('2026-07-06T07:00:00Z'),
    );
  });

  it('is undefined for zones whose windows never overlap', () => {
    // Kaliningrad (UTC+2) and Kamchatka (UTC+12): 09:00-17:00 in one is night in the other…
    const nineToFive = parseSendWindow('09:00-17:00', undefined, CLI_FIELD_NAMES);
    expect(nextOpening(nineToFive, ['Asia/Kamchatka', 'Europe/Kaliningrad'], at('2026-07-01T00:00:00Z'))).toBeUndefined();
    // …while 09:00-20:00 overlaps for an hour (07:00-08:00 UTC).
    expect(nextOpening(nineToEight, ['Asia/Kamchatka', 'Europe/Kaliningrad'], at('2026-07-01T00:00:00Z'))).toBe(at('2026-07-01T07:00:00Z'));
  });
});
