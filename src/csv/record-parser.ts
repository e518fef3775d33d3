import type { TransformCallback } from 'node:stream';
import { Parser, type CsvError } from 'csv-parse';
import { malformedProblem, type MalformedStart } from './malformed.js';

/**
 * One record of the file, in file order. `line` is the 1-based physical line where the record
 * starts (blank lines and line breaks inside quoted fields count).
 */
export type CsvRecord = { kind: 'row'; fields: string[]; line: number } | { kind: 'malformed'; line: number; problem: string };

/** What csv-parse pushes with `raw: true`. */
interface RawRecord {
  record: string[];
  raw: string;
}

const CR = 0x0d;
const LF = 0x0a;
const CR_BYTE = Buffer.from([CR]);

/** A record csv-parse refused, until we know where it ends. */
interface OpenMalformed extends MalformedStart {
  /** csv-parse's `empty_lines` at the last error: blank lines after that are not part of the record. */
  emptyLinesAtLastError: number;
}

/**
 * csv-parse, turned into a stream of {@link CsvRecord}s:
 *
 * - Line numbers without csv-parse's `info`/`on_record` (both copy its info object per record,
 *   ~1.7× the parse time). csv-parse's live `this.info.lines` is read as each record is pushed;
 *   the record started that many line breaks earlier than where it ends (`raw` says how many).
 *   `raw` (~+10% parse time) is the only public way to know where a record csv-parse skips
 *   starts: its `skip` event gives the text read so far.
 *   CRLF is turned into LF before parsing, because csv-parse counts a CRLF inside a quoted
 *   field as two lines (so the values carry `\n` where the file had `\r\n`).
 * - A record csv-parse cannot parse is skipped by csv-parse (`skip_records_with_error`) and
 *   becomes one `malformed` record, in order, with the line where it starts; reading goes on.
 *   csv-parse may report several errors for one record: they share the start line.
 * - Rows whose fields are all empty (blank lines with spaces, `;;;` as Excel writes empty rows)
 *   are skipped like blank lines.
 *
 * Not `trim`/`rtrim`: with `skip_records_with_error`, text after a closing quote then a space
 * (`"a" b`) makes csv-parse 7 drop the rest of the chunk without a word. `ltrim` is safe and
 * lets `a, "b, c"` parse; values keep trailing spaces (the row check trims).
 */
export class RecordParser extends Parser {
  #heldCr = false;
  #open: OpenMalformed | undefined;

  constructor(delimiter: string) {
    super({
      delimiter,
      bom: true,
      ltrim: true,
      raw: true,
      relax_column_count: true,
      skip_empty_lines: true,
      skip_records_with_error: true,
    });
    // csv-parse emits `skip` synchronously, between the pushes of the records around it.
    this.on('skip', (error: CsvError, raw: string | undefined) => this.#onSkip(error, raw ?? ''));
  }

  override _transform(chunk: Buffer, encoding: BufferEncoding, callback: TransformCallback): void {
    super._transform(this.#crlfToLf(chunk), encoding, callback);
  }

  override _flush(callback: TransformCallback): void {
    if (!this.#heldCr) {
      super._flush(callback);
      return;
    }
    this.#heldCr = false;
    super._transform(CR_BYTE, 'utf8', (error?: Error | null) => (error ? callback(error) : super._flush(callback)));
  }

  override push(chunk: unknown, encoding?: BufferEncoding): boolean {
    if (chunk === null) {
      // As if a record started after csv-parse's last line (a final line break is counted as a blank line).
      this.#closeMalformed(this.info.lines + 1, this.info.empty_lines);
      return super.push(null, encoding);
    }
    const { record, raw } = chunk as RawRecord;
    const line = startLine(this.info.lines, raw);
    if (this.#open !== undefined) this.#closeMalformed(line, this.info.empty_lines);
    if (raw.includes('\uFFFD')) {
      const problem = 'contains bytes that are not UTF-8 (they would show as �); save the file as UTF-8, e.g. "CSV UTF-8" in Excel';
      return super.push({ kind: 'malformed', line, problem } satisfies CsvRecord);
    }
    if (isBlank(record)) return true;
    return super.push({ kind: 'row', fields: record, line } satisfies CsvRecord);
  }

  #onSkip(error: CsvError, raw: string): void {
    const line = startLine(this.info.lines, raw);
    const open = this.#open;
    if (open !== undefined && open.line === line) {
      open.lastErrorLine = this.info.lines;
      open.emptyLinesAtLastError = this.info.empty_lines;
      open.reachedEnd ||= error.code === 'CSV_QUOTE_NOT_CLOSED';
      return;
    }
    if (open !== undefined) this.#closeMalformed(line, this.info.empty_lines);
    this.#open = {
      line,
      code: error.code,
      field: typeof error.index === 'number' ? error.index + 1 : undefined,
      message: error.message,
      firstErrorLine: this.info.lines,
      lastErrorLine: this.info.lines,
      emptyLinesAtLastError: this.info.empty_lines,
      reachedEnd: error.code === 'CSV_QUOTE_NOT_CLOSED',
    };
  }

  /**
   * Pushes the open malformed record, now that the next record starts at `nextLine`. It ends
   * before that record and before the blank lines csv-parse counted since its last error.
   */
  #closeMalformed(nextLine: number, emptyLines: number): void {
    const open = this.#open;
    if (open === undefined) return;
    this.#open = undefined;
    const lastLine = open.reachedEnd ? open.lastErrorLine : Math.max(open.lastErrorLine, nextLine - 1 - (emptyLines - open.emptyLinesAtLastError));
    super.push({ kind: 'malformed', line: open.line, problem: malformedProblem(open, lastLine) } satisfies CsvRecord);
  }

  /** Drops the CR of every CRLF; a CR that ends a chunk waits for the next one. */
  #crlfToLf(chunk: Buffer): Buffer {
    let buf = this.#heldCr ? Buffer.concat([CR_BYTE, chunk]) : chunk;
    this.#heldCr = buf.length > 0 && buf[buf.length - 1] === CR;
    if (this.#heldCr) buf = buf.subarray(0, buf.length - 1);
    let cr = buf.indexOf(CR);
    if (cr === -1) return buf;
    const out = Buffer.allocUnsafe(buf.length);
    let written = 0;
    let from = 0;
    while (cr !== -1) {
      if (buf[cr + 1] === LF) {
        written += buf.copy(out, written, from, cr);
        from = cr + 1;
      }
      cr = buf.indexOf(CR, cr + 1);
    }
    written += buf.copy(out, written, from);
    return out.subarray(0, written);
  }
}

function isBlank(fields: readonly string[]): boolean {
  for (const field of fields) if (field !== '') return false;
  return true;
}

/**
 * The line where the record in `raw` starts. `lines` is csv-parse's line counter as it stands
 * at the end of `raw`; it has counted every line break in `raw` except a last one (the record
 * delimiter, or a break just before the end of the file). `raw` may begin with blank lines.
 */
export function startLine(lines: number, raw: string): number {
  const lf = raw.indexOf('\n');
  if ((lf === -1 || lf === raw.length - 1) && !raw.includes('\r')) return lines; // one line: the usual case
  let end = raw.length;
  if (end > 0 && isBreak(raw.charCodeAt(end - 1))) end--;
  let bodyStart = 0;
  for (let i = 0; i < end; i++) {
    const char = raw.charCodeAt(i);
    if (isBreak(char)) bodyStart = i + 1;
    else if (String.fromCharCode(char).trim() !== '') break;
  }
  let breaks = 0;
  for (let i = bodyStart; i < end; i++) if (isBreak(raw.charCodeAt(i))) breaks++;
  return lines - breaks;
}

function isBreak(char: number): boolean {
  return char === LF || char === CR;
}
