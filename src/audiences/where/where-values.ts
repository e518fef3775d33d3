/**
 * How a `--where` filter reads a value, in a cell or in the expression: as an instant (an ISO 8601 date or date-time with a
 * zone), as a number, or as text ordered by code point. One definition for both sides, so `signup >= 2026-11-01` reads the
 * literal and every cell the same way.
 */

/**
 * `2026-11-01`, or a date-time with a zone: `2026-11-01T09:30Z`, `2026-11-01T09:30:15.250+02:00` (`+0200` too; `t` and `z` in
 * either case). Seconds and their fraction are optional. A date-time without a zone names no instant (whose 09:30?), so it is
 * not a date here.
 */
const INSTANT = /^(\d{4})-(\d{2})-(\d{2})(?:[Tt](\d{2}):(\d{2})(?::(\d{2})(?:\.(\d{1,9}))?)?(?:([Zz])|([+-])(\d{2}):?(\d{2})))?$/;
/** What looks like the start of a date: a literal of this shape that INSTANT does not read is a mistake, not a text. */
const DATE_SHAPE = /^\d{4}-\d{2}-\d{2}/;
/** Digits with an optional sign and decimal point: `12`, `-12.5`, `+3`, `.5`. No thousands separators, no exponents. */
const NUMBER = /^[+-]?(?:\d+(?:\.\d+)?|\.\d+)$/;

const MS_PER_DAY = 86_400_000;
const MAX_OFFSET_HOURS = 23;

/** Days since 1970-01-01 of a proleptic Gregorian date (H. Hinnant's days_from_civil): Date.UTC maps years 0–99 to 19xx. */
function daysFromCivil(year: number, month: number, day: number): number {
  const y = month <= 2 ? year - 1 : year;
  const era = Math.floor(y / 400);
  const yearOfEra = y - era * 400;
  const dayOfYear = Math.floor((153 * (month + (month > 2 ? -3 : 9)) + 2) / 5) + day - 1;
  const dayOfEra = yearOfEra * 365 + Math.floor(yearOfEra / 4) - Math.floor(yearOfEra / 100) + dayOfYear;
  return era * 146_097 + dayOfEra - 719_468;
}

function daysInMonth(year: number, month: number): number {
  if (month === 2) return (year % 4 === 0 && year % 100 !== 0) || year % 400 === 0 ? 29 : 28;
  return [4, 6, 9, 11].includes(month) ? 30 : 31;
}

/** Milliseconds of a time of day and its zone's offset, or undefined when a field is out of range. */
function timeOfDayMs(match: RegExpExecArray): number | undefined {
  const hour = Number(match[4]);
  const minute = Number(match[5]);
  const second = Number(match[6] ?? '0');
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  // Milliseconds are what an instant holds here: finer digits are dropped.
  const fractionMs = Number((match[7] ?? '').padEnd(3, '0').slice(0, 3));
  let offsetMinutes = 0;
  if (match[9] !== undefined) {
    const offsetHours = Number(match[10]);
    const offsetMinute = Number(match[11]);
    if (offsetHours > MAX_OFFSET_HOURS || offsetMinute > 59) return undefined;
    offsetMinutes = (match[9] === '-' ? -1 : 1) * (offsetHours * 60 + offsetMinute);
  }
  return ((hour * 60 + minute - offsetMinutes) * 60 + second) * 1000 + fractionMs;
}

/** The instant a text names (a bare date is that day at 00:00 UTC), in ms since the epoch; undefined when it names none. */
export function instantOf(text: string): number | undefined {
  const match = INSTANT.exec(text);
  if (match === null) return undefined;
  const year = Number(match[1]);
  const month = Number(match[2]);
  const day = Number(match[3]);
  if (month < 1 || month > 12 || day < 1 || day > daysInMonth(year, month)) return undefined;
  const dayMs = daysFromCivil(year, month, day) * MS_PER_DAY;
  if (match[4] === undefined) return dayMs;
  const time = timeOfDayMs(match);
  return time === undefined ? undefined : dayMs + time;
}

/** Whether a literal looks like a date (starts YYYY-MM-DD) but names no instant: `2026-02-30`, `2026-11-01 10:00`. */
export function isMalformedDate(text: string): boolean {
  return DATE_SHAPE.test(text) && instantOf(text) === undefined;
}

/** The number a text is, or undefined when it is none (see NUMBER). */
export function numberOf(text: string): number | undefined {
  return NUMBER.test(text) ? Number(text) : undefined;
}

/**
 * Surrogates (U+D800–DFFF, halves of code points above U+FFFF) moved above U+E000–FFFF, so that comparing UTF-16 code
 * units orders by code point, as UTF-8 bytes would: JavaScript's `<` puts U+1F600 before U+FF21.
 */
function codePointOrder(unit: number): number {
  if (unit >= 0xe000) return unit - 0x800;
  if (unit >= 0xd800) return unit + 0x2000;
  return unit;
}

/** Negative, zero or positive as `a` sorts before, with or after `b` by Unicode code point (no locale, no case folding). */
export function compareCodePoints(a: string, b: string): number {
  const length = Math.min(a.length, b.length);
  for (let i = 0; i < length; i++) {
    const x = a.charCodeAt(i);
    const y = b.charCodeAt(i);
    if (x !== y) return codePointOrder(x) - codePointOrder(y);
  }
  return a.length - b.length;
}

/**
 * A comparison of cells against one literal, prepared once: instants when both are dates, else numbers when both are
 * numbers, else text by code point. Returns negative, zero or positive as the cell sorts before, with or after the literal.
 */
export function orderAgainst(literal: string): (cell: string) => number {
  const literalInstant = instantOf(literal);
  if (literalInstant !== undefined) {
    return (cell) => {
      const instant = instantOf(cell);
      return instant === undefined ? compareCodePoints(cell, literal) : instant - literalInstant;
    };
  }
  const literalNumber = numberOf(literal);
  if (literalNumber !== undefined) {
    return (cell) => {
      const number = numberOf(cell);
      return number === undefined ? compareCodePoints(cell, literal) : number - literalNumber;
    };
  }
  return (cell) => compareCodePoints(cell, literal);
}
