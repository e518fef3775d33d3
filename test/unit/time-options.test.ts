import { describe, expect, it } from 'vitest';
import { parseDuration, parseInstant, parseSchedule } from '../../src/cli/time-options.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');

describe('the time options of campaign send (a fixed clock)', () => {
  it('reads ISO 8601 instants with an offset, and refuses ones without (the host zone must not decide)', () => {
    expect(parseInstant('--at', '2026-12-01T09:00:00+01:00')).toBe(Date.parse('2026-12-01T08:00:00Z'));
    expect(parseInstant('--at', '2026-12-01T08:00Z')).toBe(Date.parse('2026-12-01T08:00:00Z'));
    for (const bad of ['2026-12-01T09:00:00', '2026-12-01', 'tomorrow', '2026-13-01T09:00:00Z', '']) {
      expect(() => parseInstant('--at', bad), bad).toThrow(expect.objectContaining({ code: 'OPTION_INVALID', message: expect.stringContaining('--at') as unknown }));
    }
  });

  it('reads durations in minutes, hours and days', () => {
    expect(parseDuration('--valid-for', '90m')).toBe(90 * 60_000);
    expect(parseDuration('--valid-for', '6h')).toBe(6 * 3_600_000);
    expect(parseDuration('--valid-for', '1.5d')).toBe(36 * 3_600_000);
    for (const bad of ['6', '0h', '-1h', '6 hours', 'h']) expect(() => parseDuration('--valid-for', bad), bad).toThrow(expect.objectContaining({ code: 'OPTION_INVALID' }));
  });

  it('a schedule: start, deadline after it, expiry after it (--valid-for counts from the start)', () => {
    expect(parseSchedule({}, NOW)).toStrictEqual({});
    expect(parseSchedule({ at: '2026-11-23T09:00:00+01:00', startDeadline: '2026-11-23T10:00:00+01:00', validFor: '6h' }, NOW)).toStrictEqual({
      startsAt: Date.parse('2026-11-23T08:00:00Z'),
      startDeadline: Date.parse('2026-11-23T09:00:00Z'),
      expiresAt: Date.parse('2026-11-23T14:00:00Z'),
    });
    // No --at: --valid-for counts from now.
    expect(parseSchedule({ validFor: '2h' }, NOW)).toStrictEqual({ expiresAt: NOW + 2 * 3_600_000 });
  });

  it('refuses a start in the past, a deadline or expiry not after the start, and both expiry options', () => {
    const refused = (options: Parameters<typeof parseSchedule>[0], text: RegExp) =>
      expect(() => parseSchedule(options, NOW)).toThrow(expect.objectContaining({ code: 'OPTION_INVALID', message: expect.stringMatching(text) as unknown }));
    refused({ at: '2026-11-22T10:00:00Z' }, /--at .* is in the past/);
    refused({ at: '2026-11-23T09:00:00Z', startDeadline: '2026-11-23T08:00:00Z' }, /--start-deadline .* is not after the start/);
    refused({ at: '2026-11-23T09:00:00Z', expiresAt: '2026-11-23T09:00:00Z' }, /--expires-at .* every row would expire unsent/);
    refused({ expiresAt: '2026-11-23T09:00:00Z', validFor: '6h' }, /give one of them/);
    // A start a few seconds behind this host's clock is not a typo.
    expect(parseSchedule({ at: '2026-11-22T11:59:30Z' }, NOW)).toStrictEqual({ startsAt: NOW - 30_000 });
  });
});
