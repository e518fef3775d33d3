import { describe, expect, it } from 'vitest';
import { parseDuration, parseInstant, parseSchedule, parseStart } from '../../src/campaigns/spec/time-options.js';
import { pattern } from '../support/long-pattern.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('the time options of campaign send (a fixed clock)', () => {
  it('reads ISO 8601 instants with an offset, and refuses ones without (the host zone must not decide)', () => {
    expect(parseInstant('--at', '2026-12-01T09:00:00+01:00')).toBe(Date.parse('2026-12-01T08:00:00Z'));
    expect(parseInstant('--at', '2026-12-01T08:00Z')).toBe(Date.parse('2026-12-01T08:00:00Z'));
    for (const bad of ['2026-12-01T09:00:00', '2026-12-01', 'tomorrow', '2026-12-1T09:00:00Z', '']) {
      expect(() => parseInstant('--at', bad), bad).toThrow(
        expect.objectContaining({ code: 'OPTION_INVALID', message: expect.stringContaining('--at') as unknown }),
      );
    }
  });

  it.each([
    ['2027-02-30T09:00:00+01:00', '2027-02-30 has no such day: February 2027 has 28 days'],
    ['2026-02-30T09:00:00+01:00', '2026-02-30 has no such day: February 2026 has 28 days'],
    ['2026-11-31T09:00:00Z', '2026-11-31 has no such day: November 2026 has 30 days'],
    ['2027-02-29T09:00:00Z', '2027-02-29 has no such day: February 2027 has 28 days (2027 is not a leap year)'],
    ['2100-02-29T09:00:00Z', '2100-02-29 has no such day: February 2100 has 28 days (2100 is not a leap year)'],
    ['2026-04-00T09:00:00Z', '2026-04-00 has no such day: April 2026 has 30 days'],
    ['2026-13-01T09:00:00Z', 'there is no month 13'],
    ['2026-00-10T09:00:00Z', 'there is no month 00'],
    ['2026-12-01T24:00:00Z', 'hour 24 does not exist'],
    ['2026-12-01T25:00:00+01:00', 'hour 25 does not exist'],
    ['2026-12-01T09:60:00Z', 'minute 60 does not exist'],
    ['2026-12-01T09:00:60Z', 'second 60 does not exist'],
    ['2026-12-01T09:00:00+14:30', 'offset +14:30 is beyond ±14:00'],
    ['2026-12-01T09:00:00-15:00', 'offset -15:00 is beyond ±14:00'],
    ['2026-12-01T09:00:00+01:60', 'offset +01:60 has 60 minutes'],
  ])('refuses %s with TIME_INVALID, naming the flag, the value and what is wrong', (value, problem) => {
    expect(() => parseInstant('--at', value)).toThrow(
      expect.objectContaining({ code: 'TIME_INVALID', message: expect.stringContaining(`--at "${value}": ${problem}`) as unknown }),
    );
  });

  it('takes the real edges: 29 February of a leap year, 23:59:59, ±14:00', () => {
    expect(parseInstant('--at', '2028-02-29T09:00:00Z')).toBe(Date.UTC(2028, 1, 29, 9));
    expect(parseInstant('--at', '2000-02-29T00:00:00Z')).toBe(Date.UTC(2000, 1, 29));
    expect(parseInstant('--at', '2026-12-31T23:59:59Z')).toBe(Date.UTC(2026, 11, 31, 23, 59, 59));
    expect(parseInstant('--at', '2026-12-01T14:00:00+14:00')).toBe(Date.UTC(2026, 11, 1));
    expect(parseInstant('--at', '2026-12-01T00:00:00-14:00')).toBe(Date.UTC(2026, 11, 1, 14));
    expect(parseInstant('--at', '2026-11-30T09:00:00Z')).toBe(Date.UTC(2026, 10, 30, 9));
  });

  it('a start: refused as a typo beyond 366 days ahead (3026), named past only when it is a real past instant', () => {
    expect(() => parseStart('--at', '3026-12-01T09:00:00+01:00', NOW)).toThrow(
      expect.objectContaining({
        code: 'TIME_TOO_FAR_AHEAD',
        message: expect.stringMatching(/^--at 3026-12-01T09:00:00\+01:00 is more than a year ahead .*a typo in the year\?/) as unknown,
      }),
    );
    expect(parseStart('--at', '2027-11-22T12:00:00Z', NOW)).toBe(NOW + 365 * 86_400_000);
    expect(() => parseStart('--at', '2027-11-24T12:00:00Z', NOW)).toThrow(expect.objectContaining({ code: 'TIME_TOO_FAR_AHEAD' }));
    // 2026-02-30 is before NOW, but it does not exist: it is never called past.
    let error: unknown;
    try {
      parseStart('--at', '2026-02-30T09:00:00+01:00', NOW);
    } catch (caught) {
      error = caught;
    }
    expect(error).toMatchObject({ code: 'TIME_INVALID' });
    expect((error as Error).message).not.toMatch(/past/);
    expect(() => parseStart('--at', '2026-02-28T09:00:00+01:00', NOW)).toThrow(
      expect.objectContaining({ code: 'TIME_IN_PAST', message: expect.stringMatching(/is in the past/) as unknown }),
    );
    // The form names its own field.
    expect(() => parseStart('New start', '2026-11-31T09:00:00Z', NOW)).toThrow(
      /^New start "2026-11-31T09:00:00Z": 2026-11-31 has no such day/,
    );
  });

  it('reads durations in minutes, hours and days', () => {
    expect(parseDuration('--valid-for', '90m')).toBe(90 * 60_000);
    expect(parseDuration('--valid-for', '6h')).toBe(6 * 3_600_000);
    expect(parseDuration('--valid-for', '1.5d')).toBe(36 * 3_600_000);
    for (const bad of ['6', '0h', '-1h', '6 hours', 'h'])
      expect(() => parseDuration('--valid-for', bad), bad).toThrow(expect.objectContaining({ code: 'OPTION_INVALID' }));
  });

  it('a schedule: start, deadline after it, expiry after it (--valid-for counts from the start)', () => {
    expect(parseSchedule({}, NOW, CLI_FIELD_NAMES)).toStrictEqual({});
    expect(
      parseSchedule({ at: '2026-11-23T09:00:00+01:00', startDeadline: '2026-11-23T10:00:00+01:00', validFor: '6h' }, NOW, CLI_FIELD_NAMES),
    ).toStrictEqual({
      startsAt: Date.parse('2026-11-23T08:00:00Z'),
      startDeadline: Date.parse('2026-11-23T09:00:00Z'),
      expiresAt: Date.parse('2026-11-23T14:00:00Z'),
    });
    // No --at: --valid-for counts from now.
    expect(parseSchedule({ validFor: '2h' }, NOW, CLI_FIELD_NAMES)).toStrictEqual({ expiresAt: NOW + 2 * 3_600_000 });
  });

  it(
    'refuses a start in the past, a deadline without --at or not after the start, an expiry ' +
      'not after the start, and both expiry options',
    () => {
      // Against the clock or another time: a code of their own, as no schema of the value can state them; the rest OPTION_INVALID.
      const refused = (options: Parameters<typeof parseSchedule>[0], text: RegExp, code = 'OPTION_INVALID') =>
        expect(() => parseSchedule(options, NOW, CLI_FIELD_NAMES)).toThrow(
          expect.objectContaining({ code, message: expect.stringMatching(text) as unknown }),
        );
      refused({ at: '2026-11-22T10:00:00Z' }, /--at .* is in the past/, 'TIME_IN_PAST');
      refused(
        { at: '2026-11-23T09:00:00Z', startDeadline: '2026-11-23T08:00:00Z' },
        /--start-deadline .* is not after the start/,
        'TIME_NOT_AFTER_START',
      );
      refused(
        { at: '2026-11-23T09:00:00Z', expiresAt: '2026-11-23T09:00:00Z' },
        /--expires-at .* every row would expire unsent/,
        'TIME_NOT_AFTER_START',
      );
      refused({ expiresAt: '2026-11-23T09:00:00Z', validFor: '6h' }, /give one of them/);
      refused(
        { startDeadline: '2026-11-23T09:00:00Z' },
        pattern(
          /^--start-deadline 2026-11-23T09:00:00Z needs --at: a deadline only cancels a/,
          / scheduled campaign that has not started, and without --at the campaign starts at once$/,
        ),
      );
      // A start a few seconds behind this host's clock is not a typo.
      expect(parseSchedule({ at: '2026-11-22T11:59:30Z' }, NOW, CLI_FIELD_NAMES)).toStrictEqual({ startsAt: NOW - 30_000 });
    },
  );

  it('every time option refuses an impossible date with TIME_INVALID, before any rule about how they relate', () => {
    const code = (options: Parameters<typeof parseSchedule>[0]) => {
      try {
        parseSchedule(options, NOW, CLI_FIELD_NAMES);
      } catch (error) {
        return [(error as { code: string }).code, (error as Error).message];
      }
      return undefined;
    };
    expect(code({ at: '2027-02-30T09:00:00+01:00' })).toEqual([
      'TIME_INVALID',
      expect.stringContaining('--at "2027-02-30T09:00:00+01:00"'),
    ]);
    expect(code({ at: '2026-12-01T09:00:00Z', startDeadline: '2026-11-31T09:00:00Z' })).toEqual([
      'TIME_INVALID',
      expect.stringContaining('--start-deadline "2026-11-31T09:00:00Z"'),
    ]);
    // Without --at too: the impossible date is named first.
    expect(code({ startDeadline: '2026-11-31T09:00:00Z' })).toEqual(['TIME_INVALID', expect.stringContaining('--start-deadline')]);
    expect(code({ expiresAt: '2027-02-29T09:00:00Z' })).toEqual([
      'TIME_INVALID',
      expect.stringContaining('--expires-at "2027-02-29T09:00:00Z"'),
    ]);
    expect(code({ at: '3026-12-01T09:00:00+01:00' })).toEqual(['TIME_TOO_FAR_AHEAD', expect.stringContaining('more than a year ahead')]);
  });
});
