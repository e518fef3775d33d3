import { z } from 'zod';
import { AppError } from '../../errors/app-error.js';
import type { FieldNames } from '../spec/field-names.js';

/**
 * `--window 09:00-20:00 [--days mon-fri]`: the hours of the recipient's local day in which a
 * row may be sent. Minutes since local midnight; `end` before `start` spans midnight (22:00-06:00).
 * `days`: local weekdays on which the window opens (0 = Sunday … 6 = Saturday).
 */
export const sendWindowSchema = z.object({
  start: z.number().int().min(0).max(1439),
  end: z.number().int().min(0).max(1440),
  days: z.array(z.number().int().min(0).max(6)).min(1),
});
export type SendWindow = z.infer<typeof sendWindowSchema>;

const DAY_NAMES = ['sun', 'mon', 'tue', 'wed', 'thu', 'fri', 'sat'] as const;
const EVERY_DAY = [0, 1, 2, 3, 4, 5, 6];
const MINUTE_MS = 60_000;

/**
 * `09:00-20:00` (24-hour clock; `24:00` ends at midnight) and `mon-fri` / `mon,wed,sat` / `sat-sun`; errors name the fields as `names`
 * says.
 */
export function parseSendWindow(
  window: string,
  days: string | undefined,
  names: Pick<FieldNames, 'window.hours' | 'window.days'>,
): SendWindow {
  const match = /^\s*(\d{1,2}):(\d{2})\s*-\s*(\d{1,2}):(\d{2})\s*$/.exec(window);
  const start = match === null ? Number.NaN : minutesOf(match[1], match[2]);
  const end = match === null ? Number.NaN : minutesOf(match[3], match[4]);
  if (!(start >= 0 && start < 1440 && end >= 0 && end <= 1440)) {
    throw new AppError(
      'OPTION_INVALID',
      `${names['window.hours']} "${window}": give the local hours as HH:MM-HH:MM on a 24-hour ` +
        `clock, e.g. 09:00-20:00 (22:00-06:00 spans midnight)`,
    );
  }
  if (start === end) {
    throw new AppError(
      'OPTION_INVALID',
      `${names['window.hours']} "${window}" is empty: it starts and ends at ${hhmm(start)}, so no row would ever be sent; ` +
        `give an end after the start, e.g. ${hhmm(start)}-${hhmm((start + 11 * 60) % 1440)}, or 00:00-24:00 for the whole day`,
    );
  }
  return { start, end, days: days === undefined ? EVERY_DAY : parseDays(days, names['window.days']) };
}

function minutesOf(hours: string | undefined, minutes: string | undefined): number {
  const h = Number(hours);
  const m = Number(minutes);
  if (m > 59 || (h === 24 && m !== 0)) return Number.NaN;
  return h * 60 + m;
}

function parseDays(days: string, name: string): number[] {
  const dayOf = (name: string): number => DAY_NAMES.indexOf(name.trim().toLowerCase().slice(0, 3) as (typeof DAY_NAMES)[number]);
  const chosen = new Set<number>();
  for (const part of days.split(',')) {
    const [from, to, extra] = part.split('-');
    const a = dayOf(from ?? '');
    const b = to === undefined ? a : dayOf(to);
    if (a < 0 || b < 0 || extra !== undefined || (from ?? '').trim().length < 3 || (to !== undefined && to.trim().length < 3)) {
      throw new AppError(
        'OPTION_INVALID',
        `${name} "${days}": give weekdays as mon-fri, sat-sun or mon,wed,fri (sun mon tue wed thu fri sat)`,
      );
    }
    // A range wraps around the week: fri-mon is fri, sat, sun, mon.
    for (let d = a; ; d = (d + 1) % 7) {
      chosen.add(d);
      if (d === b) break;
    }
  }
  return [...chosen].sort((x, y) => x - y);
}

function hhmm(minutes: number): string {
  return `${String(Math.floor(minutes / 60)).padStart(2, '0')}:${String(minutes % 60).padStart(2, '0')}`;
}

/** The window as the operator wrote it, for status and the plan. */
export function describeWindow(window: SendWindow): string {
  return `${hhmm(window.start)}-${hhmm(window.end)} local, ${describeDays(window.days)}`;
}

/**
 * Weekdays as the operator writes them: runs of two or more days as ranges, wrapping around
 * the week (`sat-sun`, `fri-mon`, `mon-fri`), single days by name (`mon,wed,sat`), Monday
 * first; all seven as `every day`.
 */
export function describeDays(days: readonly number[]): string {
  const chosen = new Set(days);
  if (chosen.size >= 7) return 'every day';
  // A run starts at a chosen day whose day before is not chosen.
  const starts = [...chosen].filter((d) => !chosen.has((d + 6) % 7));
  const mondayFirst = (d: number) => (d + 6) % 7;
  return starts
    .sort((a, b) => mondayFirst(a) - mondayFirst(b))
    .map((first) => {
      let last = first;
      while (chosen.has((last + 1) % 7)) last = (last + 1) % 7;
      return last === first ? DAY_NAMES[first] : `${DAY_NAMES[first]}-${DAY_NAMES[last]}`;
    })
    .join(',');
}

/**
 * Offsets are cached per zone and quarter hour: every zone's offset changes only on a quarter
 * hour, and the feeder and the plan ask for the same few zones again and again.
 */
const offsetCache = new Map<string, number>();
const formatters = new Map<string, Intl.DateTimeFormat>();
const QUARTER_MS = 15 * MINUTE_MS;

function formatterOf(zone: string): Intl.DateTimeFormat {
  let formatter = formatters.get(zone);
  if (formatter === undefined) {
    formatter = new Intl.DateTimeFormat('en-US', {
      timeZone: zone,
      hourCycle: 'h23',
      year: 'numeric',
      month: 'numeric',
      day: 'numeric',
      hour: 'numeric',
      minute: 'numeric',
    });
    formatters.set(zone, formatter);
  }
  return formatter;
}

/** The zone's offset from UTC (ms) at instant `at`. */
export function zoneOffsetMs(zone: string, at: number): number {
  const quarter = Math.floor(at / QUARTER_MS) * QUARTER_MS;
  const key = `${zone}@${quarter}`;
  let offset = offsetCache.get(key);
  if (offset === undefined) {
    const parts: Record<string, number> = {};
    for (const part of formatterOf(zone).formatToParts(quarter)) if (part.type !== 'literal') parts[part.type] = Number(part.value);
    const local = Date.UTC(parts.year ?? 1970, (parts.month ?? 1) - 1, parts.day ?? 1, parts.hour ?? 0, parts.minute ?? 0);
    offset = local - quarter;
    if (offsetCache.size > 50_000) offsetCache.clear();
    offsetCache.set(key, offset);
  }
  return offset;
}

/** Open for one zone: the local minute lies in the window on one of its days. */
function openInZone(window: SendWindow, zone: string, at: number): boolean {
  const local = at + zoneOffsetMs(zone, at);
  const minute = Math.floor(local / MINUTE_MS) % 1440;
  // 1970-01-01 was a Thursday (4).
  const day = (Math.floor(local / 86_400_000) + 4) % 7;
  if (window.start < window.end) return window.days.includes(day) && minute >= window.start && minute < window.end;
  // Spans midnight: the part after midnight belongs to the day it started on.
  if (minute >= window.start) return window.days.includes(day);
  return minute < window.end && window.days.includes((day + 6) % 7);
}

/**
 * A lane is the zones its rows may be in: one when the number (or the time-zone column) says
 * which, several when it only says the country. Open only when open in every one of them, so
 * nobody is woken up.
 */
export function laneOpen(window: SendWindow, zones: readonly string[], at: number): boolean {
  return zones.length > 0 && zones.every((zone) => openInZone(window, zone, at));
}

/** The lanes (each a list of zones, by lane number) open at `at`. */
export function openLanes(window: SendWindow, lanes: readonly (readonly string[])[], at: number): number[] {
  const open: number[] = [];
  lanes.forEach((zones, lane) => {
    if (laneOpen(window, zones, at)) open.push(lane);
  });
  return open;
}

/**
 * When the lane next opens, at or after `from`, within `horizonMs`; undefined if it does not
 * (zones so far apart that their windows never overlap). Minute steps: windows and offsets
 * are whole minutes, so none is missed.
 */
export function nextOpening(window: SendWindow, zones: readonly string[], from: number, horizonMs = 8 * 86_400_000): number | undefined {
  if (zones.length === 0) return undefined;
  const first = Math.ceil(from / MINUTE_MS) * MINUTE_MS;
  if (laneOpen(window, zones, from)) return from;
  for (let at = first; at <= from + horizonMs; at += MINUTE_MS) {
    if (laneOpen(window, zones, at)) return at;
  }
  return undefined;
}

/** How long the lane stays open from `from` (which must be open), up to `limitMs`. */
export function openFor(window: SendWindow, zones: readonly string[], from: number, limitMs: number): number {
  let at = Math.floor(from / MINUTE_MS) * MINUTE_MS + MINUTE_MS;
  while (at - from < limitMs && laneOpen(window, zones, at)) at += MINUTE_MS;
  return Math.min(limitMs, at - from);
}
