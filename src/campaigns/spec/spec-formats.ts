import { getCountries } from 'libphonenumber-js';
import { ZONE_NAME } from '../../phone/recipient-zones.js';
import { BIDI_CONTROL, CONTROL, INVISIBLE_ONLY } from '../parameter-rules.js';
import { CAMPAIGN_ID_PATTERN } from '../campaign-id.js';
import { AUDIENCE_NAME } from '../../audiences/audience-name.js';
import { TTL_PATTERN } from './send-endpoint.js';

/** A calendar date that exists: each month's days, 29 February in leap years only (every 4th year, not centuries but every 4th). */
const DATE =
  '(?:\\d{4}-(?:(?:0[13578]|1[02])-(?:0[1-9]|[12]\\d|3[01])|(?:0[469]|11)-(?:0[1-9]|[12]\\d|30)|02-(?:0[1-9]|1\\d|2[0-8]))' +
  '|(?:\\d\\d(?:0[48]|[2468][048]|[13579][26])|(?:[02468][048]|[13579][26])00)-02-29)';
/** 00:00 to 23:59, seconds optional (00 to 59), milliseconds optional; an offset up to ±14:00, or Z. */
const TIME = '(?:[01]\\d|2[0-3]):[0-5]\\d(?::[0-5]\\d(?:\\.\\d{1,3})?)?';
const OFFSET = '(?:Z|[+-](?:(?:0\\d|1[0-3]):[0-5]\\d|14:00))';

/** A clock time of the window: H:MM or HH:MM, 0:00 to 23:59. */
const CLOCK = '(?:[01]?\\d|2[0-3]):[0-5]\\d';
/** A weekday as parseDays reads it: its first three letters in any case, then anything but `,` and `-` (`Mon`, `monday`). */
const DAY =
  '(?:[Ss][Uu][Nn]|[Mm][Oo][Nn]|[Tt][Uu][Ee]|[Ww][Ee][Dd]|[Tt][Hh][Uu]' +
  // İ (U+0130) lower-cases to i and a combining dot, so `FRİ` reads as fri too.
  '|[Ff][Rr][Ii\\u0130]|[Ss][Aa][Tt])[^,-]*';
const DAY_SPAN = `\\s*${DAY}(?:-\\s*${DAY})?`;

/** What a text may not hold (textValueProblem): control characters, bidi overrides and isolates. */
const REFUSED = `${CONTROL.source.slice(1, -1)}${BIDI_CONTROL.source.slice(1, -1)}`;
/** A `{{…}}` as parseTextBody finds it (its name may still be blank), and one that names a column, with no refused character. */
const ANY_PLACEHOLDER = '\\{\\{[^{}\\r\\n]*\\}\\}';
const PLACEHOLDER = `\\{\\{[^{}\\r\\n${REFUSED}]*[^{}\\s${REFUSED}][^{}\\r\\n${REFUSED}]*\\}\\}`;
/** Text between placeholders: no `{{` or `}}` of its own (a `{` just before a placeholder, as in `{{{name}}}`, is text). */
const LITERAL = `(?:[^{}${REFUSED}]|\\{(?!\\{)|\\{(?=${ANY_PLACEHOLDER})|\\}(?!\\}))`;

/** The ISO codes libphonenumber knows, in either case: each first letter with the second letters it takes. */
function countryPattern(): string {
  const byFirst = new Map<string, string>();
  for (const code of getCountries()) byFirst.set(code[0]!, (byFirst.get(code[0]!) ?? '') + code[1]!);
  const options = [...byFirst].map(([first, seconds]) => `[${first}${first.toLowerCase()}][${seconds}${seconds.toLowerCase()}]`);
  return `^(?:${options.join('|')})$`;
}

/**
 * The forms the spec's text fields must take, as JSON Schema patterns for the API's document
 * (the checks themselves give the operator a message of their own, so they are not zod's): a
 * client generated from the document knows what the server will refuse. A unit test holds
 * each to the check it describes (test/unit/openapi-constraints.test.ts).
 */
export const SPEC_FORMATS = {
  /**
   * parseTextBody: placeholders naming a column, no stray braces, no control or bidi character (stricter in one place: the
   * check trims the text first, so it lets a vertical tab or form feed at its very ends, which this refuses).
   */
  text: `^(?:${LITERAL}|${PLACEHOLDER})*$`,
  /** parseTextBody: a text that is empty, or only spaces and invisible characters, is refused (the document's `not`). */
  blankText: INVISIBLE_ONLY.source,
  /** parseInstant: a date and time that exist, with an offset, e.g. 2026-12-01T09:00:00+01:00 or …Z. */
  instant: `^${DATE}T${TIME}${OFFSET}$`,
  /** parseDuration: a number of minutes, hours or days above zero, e.g. 90m, 6h, 2d, 1.5h. */
  duration: '^(?:\\d*[1-9]\\d*(?:\\.\\d+)?|\\d+\\.\\d*[1-9]\\d*)(?:m|h|d)$',
  /** checkTtl: 12h to 30d, whole minutes, hours or days. */
  ttl: TTL_PATTERN,
  /** parseSendWindow: local hours H:MM-HH:MM on a 24-hour clock, 24:00 as an end. */
  hours: `^\\s*${CLOCK}\\s*-\\s*(?:${CLOCK}|24:00)\\s*$`,
  /** parseSendWindow: hours that start where they end are empty (`09:00-9:00`): the same hour, less a leading 0, and minute. */
  emptyHours: '^\\s*0?(\\d|1\\d|2[0-3]):(\\d\\d)\\s*-\\s*0?\\1:\\2\\s*$',
  /** parseDays: weekdays, ranges or lists (mon-fri, sat-sun, mon,wed,fri; fri-mon wraps). */
  days: `^${DAY_SPAN}(?:,${DAY_SPAN})*$`,
  /** checkPhoneNumberId: the numeric phone-number ID of WhatsApp Manager. */
  phoneNumberId: '^\\d+$',
  /** An audience's name (src/audiences/audience-name.ts). */
  audienceName: AUDIENCE_NAME.source,
  /** checkCampaignId. */
  campaignId: CAMPAIGN_ID_PATTERN.source,
  /** checkCountry: a two-letter ISO country code that has a numbering plan. */
  country: countryPattern(),
  /** A template's language code as Meta names them: en, en_US, pt_BR. */
  language: '^[a-z]{2,3}(_[A-Za-z]{2,4})?$',
  /** checkDisplayTimezone: the form of an IANA zone's name (whether the zone exists is the tz database's to say). */
  zone: ZONE_NAME.source,
  /** checkZone: the same, spaces around it ignored. */
  paddedZone: `^\\s*${ZONE_NAME.source.slice(1, -1)}\\s*$`,
} as const;
