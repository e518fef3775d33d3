import type { Failure } from './line-fields.js';
import { FIELD_LIMIT, RECORD_LIMIT, formatCount } from './limits.js';

/** The rejection reasons a malformed record carries (the producer records them as they are). */
export type MalformedReason = 'MALFORMED_RECORD' | 'FIELD_TOO_LONG';

/*
 * Plain-English sentences for the operator: what is wrong, where, and how to fix the file.
 * Never a field value: values may be phone numbers, and these texts go to Redis, the
 * rejects file and the terminal.
 */

const QUOTE_TWICE = 'write a quote that belongs to a value twice, as in "12"" pizza"';
const TOO_LONG_HINT = 'text pasted into the wrong cell, or a missing line break?';

function size(failure: Failure): string {
  return `${formatCount(failure.length)}${failure.atLeast ? '+' : ''}`;
}

/**
 * A record that is wrong on its own first line: a stray quote, text after a closing quote,
 * a value too long, bytes that are not UTF-8. `lineLength` is the whole line's length when
 * the line was longer than RECORD_LIMIT (only the start of it was read).
 */
export function lineProblem(failure: Failure, line: number, lineLength?: number): { reason: MalformedReason; problem: string } {
  const { field } = failure;
  const whole = lineLength === undefined ? '' : ` (line ${line} is ${formatCount(lineLength)} characters long)`;
  switch (failure.kind) {
    case 'stray-quote':
      return {
        reason: 'MALFORMED_RECORD',
        problem:
          `stray quote in field ${field}: a field with a quote (") in it must be quoted as a whole, ` +
          `with the quote written twice, as in "12"" pizza"; check the quoting on line ${line}`,
      };
    case 'after-quote':
      return {
        reason: 'MALFORMED_RECORD',
        problem:
          `text after a closing quote in field ${field}: a quoted field must end at its closing quote ` +
          '(spaces may follow it; a quote inside a quoted field is written twice, as in "say ""hi""")' +
          `; check the quoting on line ${line}`,
      };
    case 'field-too-long':
      return {
        reason: 'FIELD_TOO_LONG',
        problem:
          `field ${field} is ${size(failure)} characters long${whole}; no template value can be longer than ` +
          `${formatCount(FIELD_LIMIT)} characters, so the row is not read; check field ${field} on line ${line} (${TOO_LONG_HINT})`,
      };
    case 'record-too-long':
      return {
        reason: 'FIELD_TOO_LONG',
        problem:
          `the record is ${size(failure)} characters long${whole}; a record can be at most ${formatCount(RECORD_LIMIT)} ` +
          `characters, so it is not read; check line ${line} (${TOO_LONG_HINT})`,
      };
    case 'unclosed':
      return {
        reason: 'MALFORMED_RECORD',
        problem:
          `unclosed quote in field ${field}: the quote opened on line ${line} never closes before ` +
          `the end of the file; close it, or ${QUOTE_TWICE}`,
      };
    case 'not-utf8':
      return {
        reason: 'MALFORMED_RECORD',
        problem:
          `field ${field} contains bytes that are not UTF-8 (they would show as �); save the ` + `file as UTF-8, e.g. "CSV UTF-8" in Excel`,
      };
    case 'field-count':
      // Only records that span lines are checked for their field count (see spanProblem).
      return { reason: 'MALFORMED_RECORD', problem: `cannot be read as CSV; check the quoting on line ${line}` };
  }
}

export interface Span {
  /** Line where the record starts, with the quote that runs onto the next lines. */
  start: number;
  /** Field of that quote. */
  quoteField: number;
  /** Line where the record turned out malformed. */
  end: number;
  /** For field-count: fields the record made, and the header's. */
  found?: number;
  expected?: number;
}

/**
 * A record that spans lines and turns out malformed. Its quote on the first line is taken as
 * one that was never closed: only that line is rejected, and the lines after it are read
 * again as records of their own (each gets its own answer).
 */
export function spanProblem(failure: Failure, span: Span): string {
  const { start, end } = span;
  let how: string;
  switch (failure.kind) {
    case 'after-quote':
      how = `closes on line ${end}, followed by more text`;
      break;
    case 'stray-quote':
      how = `closes on line ${end}, and a stray quote follows in field ${failure.field}`;
      break;
    case 'field-too-long':
      how =
        failure.inQuotes && failure.field === span.quoteField
          ? `is still open after ${formatCount(FIELD_LIMIT)} characters (line ${end}), longer than any template value`
          : `closes, and by line ${end} field ${failure.field} is over ${formatCount(FIELD_LIMIT)} characters`;
      break;
    case 'record-too-long':
      how = `is still open after ${formatCount(RECORD_LIMIT)} characters (line ${end})`;
      break;
    case 'unclosed':
      how = `never closes before the end of the file (line ${end})`;
      break;
    case 'field-count':
      how = `closes on line ${end}, but the record it makes has ${span.found ?? '?'} fields where the header has ${span.expected ?? '?'}`;
      break;
    case 'not-utf8':
      how = `spans to line ${end}, which has bytes that are not UTF-8`;
      break;
  }
  const reread =
    end === start + 1
      ? `line ${end} is read again as a record of its own`
      : `lines ${start + 1}–${end} are read again as records of their own`;
  return (
    `unclosed quote in field ${span.quoteField}: the quote opened on line ${start} ${how}, so it is taken as a quote ` +
    `that was never closed: line ${start} is rejected and ${reread}; check the quoting on ` +
    `line ${start} (close the quote, or ${QUOTE_TWICE})`
  );
}

/** For CSV_UNCLOSED_QUOTE and the header: a quote the whole file cannot close. */
export function unclosedQuoteText(quoteLine: number, field: number, lastLine: number): string {
  const extent =
    lastLine > quoteLine
      ? `lines ${quoteLine}–${lastLine} (the rest of the file) would be read as one value`
      : 'it is on the last line of the file';
  return `a quote opens in field ${field} on line ${quoteLine} and is never closed: ${extent}`;
}

export const UNCLOSED_QUOTE_FIX = `close the quote on that line, remove it, or, for a quote inside a value, write it twice ("12"" pizza")`;
