import type { CountryCode } from 'libphonenumber-js';
import { AppError } from '../errors/app-error.js';
import { toE164 } from '../phone/e164.js';
import { printable } from '../text/operator-text.js';
import type { ConsentEntry } from './consent-entry.js';

/**
 * A consent file (`campaign consent import`): one opt-in per row. Columns, named in the header
 * in any case: `phone` (required), `source` (how the person opted in), `time` (or `opted_in_at`
 * or `at`: when, ISO 8601).
 */
export interface ConsentColumns {
  phone: number;
  source: number | undefined;
  time: number | undefined;
  fieldCount: number;
}

const TIME_COLUMNS = ['time', 'opted_in_at', 'at'];
/** Longer than any written phone number, spaces and punctuation included (as `send` bounds it). */
const MAX_PHONE_CHARS = 64;
/** A source longer than this is cut: it is an auditor's line, not a document. */
const MAX_SOURCE_CHARS = 200;
/** A time this far ahead of the import's is a clock's difference, not a consent from the future. */
const FUTURE_SLACK_MS = 5 * 60_000;

/** Where the file's columns are; CONSENT_FILE_INVALID naming the columns found when it has no phone column. */
export function consentColumns(file: string, header: readonly string[]): ConsentColumns {
  const named = header.map((column) => column.trim().toLowerCase());
  const phone = named.indexOf('phone');
  if (phone < 0) {
    throw new AppError(
      'CONSENT_FILE_INVALID',
      `${file}: the header has no "phone" column. Columns found: ${header.map((c) => `"${c}"`).join(', ')}. ` +
        'A consent file needs a column "phone" (E.164, e.g. +4915112345678); "source" and "time" are optional.',
    );
  }
  const source = named.indexOf('source');
  const time = TIME_COLUMNS.map((name) => named.indexOf(name)).find((index) => index >= 0);
  return { phone, source: source < 0 ? undefined : source, time, fieldCount: header.length };
}

/** Why a row of a consent file is not recorded (the CSV reader's own reasons besides). */
export type ConsentRowRefusal = 'FIELD_COUNT' | 'PHONE_MISSING' | 'PHONE_INVALID' | 'TIME_INVALID' | 'TIME_IN_FUTURE';

/** What one row of the file says: an opt-in, or why the row cannot be recorded. */
export type ConsentRowVerdict = { ok: true; entry: ConsentEntry } | { ok: false; phone: string; reason: ConsentRowRefusal; detail: string };

export interface ConsentRowRules {
  columns: ConsentColumns;
  defaultCountry?: CountryCode | undefined;
  /** The source of a row whose `source` is empty or absent (`--source`, else `consent file <name>`). */
  defaultSource: string;
  /** The import's time (ms): a row without a time opted in then; a row after it is refused. */
  now: number;
}

export function checkConsentRow(fields: readonly string[], rules: ConsentRowRules): ConsentRowVerdict {
  const { columns } = rules;
  const raw = (fields[columns.phone] ?? '').trim();
  const refuse = (phone: string, reason: ConsentRowRefusal, detail: string): ConsentRowVerdict => ({ ok: false, phone, reason, detail });
  if (fields.length !== columns.fieldCount) {
    return refuse(raw, 'FIELD_COUNT', `expected ${columns.fieldCount} fields as in the header, found ${fields.length} (check quoting)`);
  }
  if (raw === '') return refuse(raw, 'PHONE_MISSING', 'the phone column is empty');
  // Not worth parsing, and its text must not be quoted back whole.
  if (raw.length > MAX_PHONE_CHARS) return refuse('', 'PHONE_INVALID', `the phone column holds ${raw.length} characters`);
  const phone = toE164(raw, rules.defaultCountry);
  if (!phone.ok) return refuse(raw, 'PHONE_INVALID', phone.reason);
  const time = columns.time === undefined ? '' : (fields[columns.time] ?? '').trim();
  const at = time === '' ? rules.now : parseIsoTime(time);
  const shown = printable(time.slice(0, 40));
  if (at === undefined) return refuse(phone.e164, 'TIME_INVALID', `"${shown}" is not an ISO 8601 time such as 2026-03-01T09:30:00Z`);
  if (at > rules.now + FUTURE_SLACK_MS) {
    return refuse(phone.e164, 'TIME_IN_FUTURE', `${shown} is after the import's time, ${new Date(rules.now).toISOString()}`);
  }
  const given = columns.source === undefined ? '' : (fields[columns.source] ?? '').trim();
  const source = given === '' ? rules.defaultSource : printable(given.slice(0, MAX_SOURCE_CHARS));
  return { ok: true, entry: { phone: phone.e164, kind: 'opt-in', at, source } };
}

const ISO_TIME = /^(\d{4})-(\d{2})-(\d{2})(?:[T ](\d{2}):(\d{2})(?::(\d{2})(\.\d{1,9})?)?(Z|[+-]\d{2}:?\d{2})?)?$/i;

/**
 * An ISO 8601 date or date-time as ms since the epoch, or undefined: `2026-03-01`,
 * `2026-03-01T09:30Z`, `2026-03-01T09:30:00.123+01:00`. A date, or a time without an offset,
 * is read as UTC (the file says nothing of where it was written). Days that do not exist
 * (2026-02-30) and times before 1970 are refused.
 */
export function parseIsoTime(text: string): number | undefined {
  const m = ISO_TIME.exec(text);
  if (m === null) return undefined;
  const [year, month, day, hour, minute, second] = [m[1], m[2], m[3], m[4], m[5], m[6]].map((part) => Number(part ?? 0)) as [
    number,
    number,
    number,
    number,
    number,
    number,
  ];
  const date = new Date(Date.UTC(year, month - 1, day));
  if (date.getUTCFullYear() !== year || date.getUTCMonth() !== month - 1 || date.getUTCDate() !== day) return undefined;
  if (hour > 23 || minute > 59 || second > 59) return undefined;
  const fraction = m[7] === undefined ? 0 : Math.floor(Number(`0${m[7]}`) * 1000);
  const offset = offsetMs(m[8]);
  const at = Date.UTC(year, month - 1, day, hour, minute, second, fraction) - offset;
  return Number.isFinite(at) && at >= 0 ? at : undefined;
}

function offsetMs(zone: string | undefined): number {
  if (zone === undefined || zone.toUpperCase() === 'Z') return 0;
  const digits = zone.replace(':', '');
  const sign = digits.startsWith('-') ? -1 : 1;
  return sign * (Number(digits.slice(1, 3)) * 60 + Number(digits.slice(3, 5))) * 60_000;
}
