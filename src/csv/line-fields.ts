import { BREAK_CR, BREAK_EOF, type LineBreak } from './line-splitter.js';
import { FIELD_LIMIT } from './limits.js';
import { isSpaceCode } from './unicode-space.js';

const QUOTE = 0x22;

/** What scanning one line into a record gave. */
export const LINE_DONE = 0; // the record ends with this line
export const LINE_OPEN = 1; // a quoted field runs past the end of this line
export const LINE_FAILED = 2; // the record is malformed: see `RecordBuild.failure`
export type LineOutcome = typeof LINE_DONE | typeof LINE_OPEN | typeof LINE_FAILED;

export type FailureKind = 'stray-quote' | 'after-quote' | 'field-too-long' | 'record-too-long' | 'unclosed' | 'field-count' | 'not-utf8';

/** Why a record is malformed, without any of its text (values may be phone numbers). */
export interface Failure {
  kind: FailureKind;
  /** 1-based field where it went wrong. */
  field: number;
  /** For too-long: the length seen; `atLeast` when the rest was not counted. */
  length: number;
  atLeast: boolean;
  /** The field that went wrong was inside quotes (a quote that ran on). */
  inQuotes: boolean;
}

/** A record being read, possibly across several lines. */
export interface RecordBuild {
  fields: string[];
  /** Inside a quoted field at the end of the last line read. */
  inQuote: boolean;
  /** The quoted field's text so far, when it spans lines (never longer than FIELD_LIMIT). */
  quoted: string;
  failure: Failure | undefined;
}

export function newBuild(): RecordBuild {
  return { fields: [], inQuote: false, quoted: '', failure: undefined };
}

function fail(build: RecordBuild, kind: FailureKind, field: number, length = 0, atLeast = false, inQuotes = false): LineOutcome {
  build.failure = { kind, field, length, atLeast, inQuotes };
  return LINE_FAILED;
}

/**
 * Reads one physical line into `build`: a new record, or the continuation of a quoted field
 * that an earlier line left open. The rules, which are RFC 4180 plus the leniency users
 * expect from spreadsheets:
 *
 * - a field is quoted when its first non-space character is `"`; spaces (any Unicode space)
 *   before the opening quote and after the closing quote are allowed and dropped;
 * - inside quotes, `""` is a quote, and delimiters and line breaks are text;
 * - an unquoted field is kept exactly as written (spaces included: the row check trims);
 * - malformed: a quote inside an unquoted field (`5" screen`), text after a closing quote
 *   (`"Bruno" Costa`), a field over FIELD_LIMIT. The scan stops at the first problem.
 *
 * Fields are slices of the line (no copy per character); a quoted field that spans lines is
 * joined from at most FIELD_LIMIT characters. `dropped` is the length the line splitter cut
 * off the end of this line (counted in sizes, never read).
 */
export function scanLine(
  build: RecordBuild,
  text: string,
  ending: LineBreak,
  dropped: number,
  delimiter: string,
  delimiterCode: number,
): LineOutcome {
  const { fields } = build;
  const length = text.length;
  let i = 0;
  // The next quote at or after i, found once and reused while unquoted fields pass before it.
  let nextQuote = text.indexOf('"');
  for (;;) {
    if (!build.inQuote) {
      let j = i;
      while (j < length) {
        const code = text.charCodeAt(j);
        if (code === delimiterCode || !isSpaceCode(code)) break;
        j++;
      }
      if (j < length && text.charCodeAt(j) === QUOTE) {
        build.inQuote = true;
        build.quoted = '';
        i = j + 1;
      } else {
        // An unquoted field, from i to the next delimiter or the end of the line.
        const delimiterAt = text.indexOf(delimiter, i);
        const end = delimiterAt === -1 ? length : delimiterAt;
        if (nextQuote !== -1 && nextQuote < i) nextQuote = text.indexOf('"', i);
        if (nextQuote !== -1 && nextQuote < end) return fail(build, 'stray-quote', fields.length + 1);
        if (end - i > FIELD_LIMIT) return fail(build, 'field-too-long', fields.length + 1, end - i, delimiterAt === -1 && dropped > 0);
        fields.push(text.slice(i, end));
        if (delimiterAt === -1) return LINE_DONE;
        i = delimiterAt + 1;
        continue;
      }
    }
    // Inside a quoted field, at i.
    for (;;) {
      const quote = text.indexOf('"', i);
      const field = fields.length + 1;
      if (quote === -1) {
        // The field goes on past this line (or the file ends inside it: the caller decides).
        const size = build.quoted.length + (length - i) + 1 + dropped;
        if (size > FIELD_LIMIT) return fail(build, 'field-too-long', field, size, true, true);
        const rest = i === 0 ? text : text.slice(i);
        build.quoted += ending === BREAK_EOF ? rest : ending === BREAK_CR ? `${rest}\r` : `${rest}\n`;
        return LINE_OPEN;
      }
      const escaped = text.charCodeAt(quote + 1) === QUOTE;
      const size = build.quoted.length + (quote - i);
      if (size > FIELD_LIMIT) return fail(build, 'field-too-long', field, size, escaped, true);
      if (escaped) {
        build.quoted += text.slice(i, quote + 1); // `""` is one quote
        i = quote + 2;
        continue;
      }
      fields.push(build.quoted.length === 0 ? text.slice(i, quote) : build.quoted + text.slice(i, quote));
      build.quoted = '';
      build.inQuote = false;
      let k = quote + 1;
      while (k < length) {
        const code = text.charCodeAt(k);
        if (code === delimiterCode || !isSpaceCode(code)) break;
        k++;
      }
      if (k === length) return LINE_DONE;
      if (text.charCodeAt(k) !== delimiterCode) return fail(build, 'after-quote', fields.length);
      i = k + 1;
      nextQuote = text.indexOf('"', i);
      break;
    }
    // After a delimiter: a field starts, possibly empty at the end of the line.
  }
}
