import { AppError } from '../errors/app-error.js';

/** ISO 8601 with a date, a time and an offset: a start time must not depend on the host's zone. */
const INSTANT = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}(?::\d{2}(?:\.\d{1,3})?)?(?:Z|[+-]\d{2}:\d{2})$/;
const DURATION = /^(\d+(?:\.\d+)?)(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** `--at 2026-12-01T09:00:00+01:00` → ms since the epoch; OPTION_INVALID names the flag and the form. */
export function parseInstant(flag: string, value: string): number {
  const ms = INSTANT.test(value) ? Date.parse(value) : Number.NaN;
  if (Number.isNaN(ms)) {
    throw new AppError('OPTION_INVALID', `${flag} "${value}": give a date and time with its offset, e.g. 2026-12-01T09:00:00+01:00 or 2026-12-01T08:00:00Z`);
  }
  return ms;
}

/** `--valid-for 6h` → ms (m, h or d). */
export function parseDuration(flag: string, value: string): number {
  const match = DURATION.exec(value);
  const ms = match === null ? Number.NaN : Number(match[1]) * UNIT_MS[match[2] as keyof typeof UNIT_MS];
  if (!(ms > 0)) throw new AppError('OPTION_INVALID', `${flag} "${value}": give a duration such as 90m, 6h or 2d`);
  return ms;
}

export interface ScheduleOptions {
  at?: string | undefined;
  startDeadline?: string | undefined;
  expiresAt?: string | undefined;
  validFor?: string | undefined;
}

export interface Schedule {
  startsAt?: number;
  startDeadline?: number;
  expiresAt?: number;
}

/**
 * The times of `campaign send`, checked against each other and against `now` (this host's
 * clock: a start an hour in the past is a typo, not a wish to send at once).
 */
export function parseSchedule(options: ScheduleOptions, now: number): Schedule {
  const schedule: Schedule = {};
  if (options.at !== undefined) {
    const startsAt = parseInstant('--at', options.at);
    if (startsAt < now - 60_000) {
      throw new AppError('OPTION_INVALID', `--at ${options.at} is in the past (now is ${new Date(now).toISOString()}); leave --at out to start at once`);
    }
    schedule.startsAt = startsAt;
  }
  const start = schedule.startsAt ?? now;
  if (options.startDeadline !== undefined) {
    const deadline = parseInstant('--start-deadline', options.startDeadline);
    if (deadline <= start) throw new AppError('OPTION_INVALID', `--start-deadline ${options.startDeadline} is not after the start (${new Date(start).toISOString()})`);
    schedule.startDeadline = deadline;
  }
  if (options.expiresAt !== undefined && options.validFor !== undefined) {
    throw new AppError('OPTION_INVALID', '--expires-at and --valid-for both say when rows expire: give one of them');
  }
  if (options.expiresAt !== undefined || options.validFor !== undefined) {
    const expiresAt = options.expiresAt !== undefined ? parseInstant('--expires-at', options.expiresAt) : start + parseDuration('--valid-for', options.validFor ?? '');
    if (expiresAt <= start) {
      throw new AppError('OPTION_INVALID', `--expires-at ${options.expiresAt ?? ''} is not after the start (${new Date(start).toISOString()}): every row would expire unsent`);
    }
    schedule.expiresAt = expiresAt;
  }
  return schedule;
}
