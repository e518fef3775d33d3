import { AppError } from '../../errors/app-error.js';
import type { FieldNames } from './field-names.js';

/** ISO 8601 with a date, a time and an offset: a start time must not depend on the host's zone. */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})T(\d{2}):(\d{2})(?::(\d{2})(?:\.\d{1,3})?)?(?:Z|([+-])(\d{2}):(\d{2}))$/;
const DURATION = /^(\d+(?:\.\d+)?)(m|h|d)$/;
const UNIT_MS = { m: 60_000, h: 3_600_000, d: 86_400_000 } as const;
const DAY_MS = 86_400_000;
/** A start further ahead than this is taken for a typo in the year (3026 for 2026). */
const START_HORIZON_MS = 366 * DAY_MS;
const MONTHS = [
  'January',
  'February',
  'March',
  'April',
  'May',
  'June',
  'July',
  'August',
  'September',
  'October',
  'November',
  'December',
] as const;

/**
 * `--at 2026-12-01T09:00:00+01:00` → ms since the epoch. A value not in that form is refused
 * with OPTION_INVALID; one in that form naming a moment that does not exist (30 February,
 * 24:00, an offset of +15:00) with TIME_INVALID, saying which part is wrong: Date.parse would
 * roll it over into another day instead. `flag` names the option or form field.
 */
export function parseInstant(flag: string, value: string): number {
  const match = INSTANT.exec(value);
  const ms = match === null ? Number.NaN : Date.parse(value);
  if (match === null) {
    throw new AppError(
      'OPTION_INVALID',
      `${flag} "${value}": give a date and time with its offset, e.g. 2026-12-01T09:00:00+01:00 or 2026-12-01T08:00:00Z`,
    );
  }
  const problem = impossiblePart(match);
  if (problem !== undefined || Number.isNaN(ms)) {
    throw new AppError(
      'TIME_INVALID',
      `${flag} "${value}": ${problem ?? 'no such time'}; give a real date and time, e.g. 2026-12-01T09:00:00+01:00`,
    );
  }
  return ms;
}

/** What makes a well-formed instant impossible, in the operator's terms; undefined when it exists. */
function impossiblePart(match: RegExpExecArray): string | undefined {
  const [, y = '', mo = '', d = '', h = '', mi = '', s, sign, oh, om] = match;
  const [year, month, day, hour, minute] = [y, mo, d, h, mi].map(Number) as [number, number, number, number, number];
  if (month < 1 || month > 12) return `there is no month ${mo} (months are 01 to 12)`;
  const days = daysInMonth(year, month);
  if (day < 1 || day > days) {
    const monthName = MONTHS[month - 1] ?? '';
    const leap = month === 2 && day === 29 ? ` (${y} is not a leap year)` : '';
    return `${y}-${mo}-${d} has no such day: ${monthName} ${y} has ${days} days${leap}`;
  }
  if (hour > 23) return `hour ${h} does not exist (hours are 00 to 23; midnight is 00:00 of the next day)`;
  if (minute > 59) return `minute ${mi} does not exist (minutes are 00 to 59)`;
  if (s !== undefined && Number(s) > 59) return `second ${s} does not exist (seconds are 00 to 59)`;
  if (sign !== undefined && oh !== undefined && om !== undefined) {
    const offset = `${sign}${oh}:${om}`;
    if (Number(om) > 59) return `offset ${offset} has ${om} minutes (at most 59)`;
    if (Number(oh) * 60 + Number(om) > 14 * 60) return `offset ${offset} is beyond ±14:00 (no place on Earth is further from UTC)`;
  }
  return undefined;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/**
 * A campaign's start (`send --at`, `reschedule --at`, the campaigns page's form): a real
 * instant, not in the past (a start an hour in the past is a typo, not a wish to send at
 * once; a few seconds behind this host's clock are not), and at most a year ahead (a start
 * in 3026 is a typo too). Each of these has a code of its own (TIME_IN_PAST, TIME_TOO_FAR_AHEAD):
 * only the clock refuses them, so no schema of the value can say so.
 */
export function parseStart(flag: string, value: string, now: number, pastHint = 'give a time ahead'): number {
  const startsAt = parseInstant(flag, value);
  if (startsAt < now - 60_000) {
    throw new AppError('TIME_IN_PAST', `${flag} ${value} is in the past (now is ${new Date(now).toISOString()}); ${pastHint}`);
  }
  if (startsAt > now + START_HORIZON_MS) {
    throw new AppError(
      'TIME_TOO_FAR_AHEAD',
      `${flag} ${value} is more than a year ahead (now is ${new Date(now).toISOString()}): a ` +
        `typo in the year? A start may be at most 366 days ahead`,
    );
  }
  return startsAt;
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

/** How the schedule's fields are named where they came from: flags at the CLI, JSON fields at the API. */
export type ScheduleNames = Pick<FieldNames, 'schedule.at' | 'schedule.startDeadline' | 'schedule.expiresAt' | 'schedule.validFor'>;

/**
 * The times of `campaign send`, checked against each other and against `now` (this host's
 * clock). Every instant is read first, so a typo in one is named as such before any rule
 * about how they relate.
 */
export function parseSchedule(options: ScheduleOptions, now: number, names: ScheduleNames): Schedule {
  const {
    'schedule.at': atName,
    'schedule.startDeadline': deadlineName,
    'schedule.expiresAt': expiresName,
    'schedule.validFor': validForName,
  } = names;
  const schedule: Schedule = {};
  const deadline = options.startDeadline === undefined ? undefined : parseInstant(deadlineName, options.startDeadline);
  const expiry = options.expiresAt === undefined ? undefined : parseInstant(expiresName, options.expiresAt);
  if (options.at !== undefined) schedule.startsAt = parseStart(atName, options.at, now, `leave ${atName} out to start at once`);
  const start = schedule.startsAt ?? now;
  if (options.startDeadline !== undefined && deadline !== undefined) {
    if (options.at === undefined) {
      throw new AppError(
        'OPTION_INVALID',
        `${deadlineName} ${options.startDeadline} needs ${atName}: a deadline only cancels a scheduled ` +
          `campaign that has not started, and without ${atName} the campaign starts at once`,
      );
    }
    if (deadline <= start)
      throw new AppError(
        'TIME_NOT_AFTER_START',
        `${deadlineName} ${options.startDeadline} is not after the start (${new Date(start).toISOString()})`,
      );
    schedule.startDeadline = deadline;
  }
  if (options.expiresAt !== undefined && options.validFor !== undefined) {
    throw new AppError('OPTION_INVALID', `${expiresName} and ${validForName} both say when rows expire: give one of them`);
  }
  if (options.expiresAt !== undefined || options.validFor !== undefined) {
    const expiresAt = expiry ?? start + parseDuration(validForName, options.validFor ?? '');
    if (expiresAt <= start) {
      throw new AppError(
        'TIME_NOT_AFTER_START',
        `${expiresName} ${options.expiresAt ?? ''} is not after the start ` +
          `(${new Date(start).toISOString()}): every row would expire unsent`,
      );
    }
    schedule.expiresAt = expiresAt;
  }
  return schedule;
}
