import { LINE_DONE, LINE_OPEN, newBuild, scanLine, type Failure, type FailureKind, type RecordBuild } from './line-fields.js';
import { LineSplitter, type LineBreak } from './line-splitter.js';
import { FIELD_LIMIT, RECORD_LIMIT } from './limits.js';
import { lineProblem, spanProblem, type MalformedReason } from './malformed.js';
import { Utf8Text } from './utf8-text.js';

/**
 * One record of the file, in file order. `line` is the 1-based physical line where the
 * record starts (the header is line 1 when nothing precedes it; blank lines and line breaks
 * inside quoted fields count). A malformed record carries the reason the producer records
 * and a problem text that says what is wrong, where, and how to fix it, with no field value.
 */
export type CsvRecord =
  { kind: 'row'; fields: string[]; line: number } | { kind: 'malformed'; line: number; problem: string; reason: MalformedReason };

/** A line kept while a record that spans lines is read: it is read again if that record fails. */
interface HeldLine {
  text: string;
  ending: LineBreak;
  dropped: number;
  badBytes: boolean;
  line: number;
}

/** A record whose quoted field ran past the end of its first line. */
interface OpenRecord {
  build: RecordBuild;
  start: number;
  /** The field whose quote is open at the end of the first line. */
  quoteField: number;
  /** The lines after the first that the record has taken so far. */
  held: HeldLine[];
  chars: number;
  badBytes: boolean;
}

/**
 * Bytes of a CSV file → records, with a small state machine of our own.
 *
 * Not csv-parse: with `skip_records_with_error` it drops the records after a stray quote
 * without a word, lets an unclosed quote swallow the lines after it into one record (the
 * recipients on them vanish), and with `ltrim` it corrupts fields that start with a no-break
 * space into "bytes that are not UTF-8". Here every record of the file gets exactly one
 * answer, in file order.
 *
 * Recovery: a quoted field may span lines (Excel writes line breaks in cells that way), but
 * only if the record it is part of then parses cleanly, with as many fields as the header.
 * When such a record turns out malformed (text after its closing quote, a stray quote later
 * on, a field or record over the limits, the end of the file), its quote is taken as one that
 * was never closed: only its FIRST line is a malformed record, and the lines after it are read
 * again as records of their own. The look-ahead is bounded by RECORD_LIMIT, so memory stays
 * bounded and a broken quote costs one line, not the rest of the file.
 *
 * Feed it with `write(bytes)` and `end()`; each returns the records completed so far.
 */
export class RecordParser {
  readonly #text = new Utf8Text();
  readonly #lines: LineSplitter;
  readonly #delimiter: string;
  readonly #delimiterCode: number;
  /** Fields of the first row (the header): a record that spans lines must have as many. */
  #expected: number | undefined;
  #lineCount = 0;
  #out: CsvRecord[] = [];
  #open: OpenRecord | undefined;
  /** Lines to read again, in order, after a record that spanned them failed. */
  #reread: HeldLine[] = [];

  constructor(delimiter: string) {
    this.#delimiter = delimiter;
    this.#delimiterCode = delimiter.charCodeAt(0);
    this.#lines = new LineSplitter((text, ending, dropped, badBytes) => {
      this.#take(text, ending, dropped, badBytes, ++this.#lineCount);
      while (this.#reread.length > 0) {
        const held = this.#reread.shift() as HeldLine;
        this.#take(held.text, held.ending, held.dropped, held.badBytes, held.line);
      }
    });
  }

  /** Physical lines read so far. */
  get lines(): number {
    return this.#lineCount;
  }

  write(bytes: Uint8Array): CsvRecord[] {
    this.#lines.push(this.#text.decode(bytes));
    return this.#drain();
  }

  end(): CsvRecord[] {
    this.#lines.push(this.#text.end());
    this.#lines.end();
    // The file ended inside a quote: each failure rejects one line and reads the rest again.
    while (this.#open !== undefined) {
      const open = this.#open;
      this.#failOpen(open, this.#failure('unclosed', open.quoteField, true), open.held.at(-1)?.line ?? open.start);
      while (this.#reread.length > 0) {
        const held = this.#reread.shift() as HeldLine;
        this.#take(held.text, held.ending, held.dropped, held.badBytes, held.line);
      }
    }
    return this.#drain();
  }

  #drain(): CsvRecord[] {
    const out = this.#out;
    this.#out = [];
    return out;
  }

  #take(text: string, ending: LineBreak, dropped: number, badBytes: boolean, line: number): void {
    if (this.#open !== undefined) {
      this.#continue(this.#open, { text, ending, dropped, badBytes, line });
      return;
    }
    if (dropped === 0 && text.indexOf('"') === -1) {
      // The usual line: no quote, so splitting on the delimiter is the whole parse.
      if (text.length === 0) return;
      const fields = text.split(this.#delimiter);
      if (text.length > FIELD_LIMIT) {
        const long = fields.findIndex((field) => field.length > FIELD_LIMIT);
        if (long !== -1)
          return this.#malformed(line, lineProblem(this.#failure('field-too-long', long + 1, false, fields[long]?.length ?? 0), line));
      }
      this.#complete(fields, line, badBytes);
      return;
    }
    const build = newBuild();
    const outcome = scanLine(build, text, ending, dropped, this.#delimiter, this.#delimiterCode);
    const wholeLength = dropped > 0 ? text.length + dropped : undefined;
    if (build.failure !== undefined) return this.#malformed(line, lineProblem(build.failure, line, wholeLength));
    if (dropped > 0) {
      return this.#malformed(
        line,
        lineProblem(this.#failure('record-too-long', build.fields.length + 1, true, RECORD_LIMIT), line, wholeLength),
      );
    }
    if (outcome === LINE_OPEN) {
      this.#open = { build, start: line, quoteField: build.fields.length + 1, held: [], chars: text.length + 1, badBytes };
      return;
    }
    this.#complete(build.fields, line, badBytes);
  }

  #continue(open: OpenRecord, held: HeldLine): void {
    open.held.push(held);
    open.chars += held.text.length + held.dropped + 1;
    open.badBytes ||= held.badBytes;
    if (held.dropped > 0 || open.chars > RECORD_LIMIT) {
      return this.#failOpen(open, this.#failure('record-too-long', open.build.fields.length + 1, true, open.chars), held.line);
    }
    const outcome = scanLine(open.build, held.text, held.ending, 0, this.#delimiter, this.#delimiterCode);
    if (outcome === LINE_OPEN) return;
    if (open.build.failure !== undefined) return this.#failOpen(open, open.build.failure, held.line);
    const { fields } = open.build;
    if (outcome === LINE_DONE && this.#expected !== undefined && fields.length !== this.#expected) {
      return this.#failOpen(open, this.#failure('field-count', fields.length, false), held.line, {
        found: fields.length,
        expected: this.#expected,
      });
    }
    this.#open = undefined;
    this.#complete(fields, open.start, open.badBytes);
  }

  /** Rejects the first line of a record that spanned lines, and reads the lines after it again. */
  #failOpen(open: OpenRecord, failure: Failure, end: number, counts: { found?: number; expected?: number } = {}): void {
    this.#open = undefined;
    const problem =
      open.held.length === 0
        ? lineProblem(failure, open.start).problem
        : spanProblem(failure, { start: open.start, quoteField: open.quoteField, end, ...counts });
    this.#malformed(open.start, { reason: 'MALFORMED_RECORD', problem });
    this.#reread.unshift(...open.held);
  }

  /** A record read cleanly: a row, unless it holds bad bytes or nothing at all. */
  #complete(fields: string[], line: number, badBytes: boolean): void {
    if (badBytes) {
      const field = fields.findIndex((value) => value.includes('\uFFFD'));
      this.#malformed(line, lineProblem(this.#failure('not-utf8', field === -1 ? 1 : field + 1, false), line));
      return;
    }
    if (isBlank(fields)) return;
    this.#expected ??= fields.length;
    this.#out.push({ kind: 'row', fields, line });
  }

  #malformed(line: number, { reason, problem }: { reason: MalformedReason; problem: string }): void {
    this.#out.push({ kind: 'malformed', line, problem, reason });
  }

  #failure(kind: FailureKind, field: number, inQuotes: boolean, length = 0): Failure {
    return { kind, field, length, atLeast: kind === 'record-too-long', inQuotes };
  }
}

/** Every field empty or spaces: a blank line, or `;;;` as Excel writes an empty row. */
function isBlank(fields: readonly string[]): boolean {
  for (const field of fields) {
    if (field.length > 0 && field.trim() !== '') return false;
  }
  return true;
}
