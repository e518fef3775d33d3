import type { FileHandle } from 'node:fs/promises';
import { utf8SpaceLength } from './unicode-space.js';

/** What the pre-scan learnt about the whole file. */
export interface PrescanResult {
  /** Physical lines (CRLF, LF and a lone CR each end one). */
  lines: number;
  /** Records with any text, the header included (blank lines and `;;;` rows not counted). */
  records: number;
  /** A quote that opens and is never closed before the end of the file. */
  unclosed?: { line: number; field: number; inHeader: boolean; lastLine: number };
}

const LF = 0x0a;
const CR = 0x0d;
const QUOTE = 0x22;

// States of the scan.
const FIELD_START = 0; // spaces before a field
const UNQUOTED = 1;
const QUOTED = 2;
const AFTER_QUOTE = 3; // after a closing quote: spaces, then a delimiter or a line break
const SKIP_LINE = 4; // a record malformed on its own line: the parser goes on at the next line

/** Bytes a character at the end of a chunk may need: the scan leaves them for the next chunk. */
const LOOKAHEAD = 4;
const READ_BYTES = 1024 * 1024;

/**
 * Reads the whole file once as bytes, before any record is returned, to answer one question
 * the streaming parser cannot answer in time: does a quote open and never close before the
 * end of the file? Read as CSV, such a quote would make the rest of the file one value, so
 * the file is refused whole (CSV_UNCLOSED_QUOTE) instead of sending the rows before it and
 * rejecting the rest. It also counts the records, for the progress bar.
 *
 * It reads quotes as the record parser does on a record's first line: a quote opens only at
 * the start of a field (after spaces), `""` inside quotes is a quote, and a line with a stray
 * quote or text after a closing quote is passed over to its end. The parser's re-reading of
 * lines after a broken multi-line record is not repeated here (it would need to go back in
 * the file); where the two readings differ, the parser still answers every line, since it
 * handles a quote left open at the end of the file on its own.
 *
 * The delimiter, quote and line breaks are ASCII, and UTF-8 never uses ASCII bytes inside a
 * multi-byte character, so bytes can be scanned without decoding; only spaces before or after
 * a quote are decoded, to allow the Unicode ones.
 */
export async function prescanQuotes(handle: FileHandle, delimiter: string, readBytes = READ_BYTES): Promise<PrescanResult> {
  const scan = new QuoteScan(delimiter.charCodeAt(0));
  const buffer = Buffer.allocUnsafe(readBytes + LOOKAHEAD);
  let kept = 0;
  let position = 0;
  for (;;) {
    const { bytesRead } = await handle.read(buffer, kept, readBytes, position);
    position += bytesRead;
    const total = kept + bytesRead;
    const final = bytesRead === 0;
    const stop = final ? total : Math.max(0, total - LOOKAHEAD);
    const next = scan.feed(buffer, stop, total);
    buffer.copy(buffer, 0, next, total);
    kept = total - next;
    if (final) return scan.finish();
  }
}

/** The scan's state machine, fed buffers in file order. */
class QuoteScan {
  readonly #delimiter: number;
  #state = FIELD_START;
  #atFileStart = true;
  #line = 1;
  #records = 0;
  #hasText = false;
  #field = 1;
  #quoteLine = 0;
  #quoteField = 0;
  #quoteInHeader = false;
  #lastByte = -1;

  constructor(delimiterCode: number) {
    this.#delimiter = delimiterCode;
  }

  /**
   * Scans `bytes[0, stop)`, looking at most LOOKAHEAD bytes past `stop` (up to `total`).
   * Returns where the next feed must start: `stop`, or a little after it when a CRLF, `""`
   * or a multi-byte space was read across it.
   */
  feed(bytes: Uint8Array, stop: number, total: number): number {
    const delimiter = this.#delimiter;
    let state = this.#state;
    let i = 0;
    if (this.#atFileStart) {
      // Every BOM at the start (the first read holds them all: it is a megabyte; in tests
      // with tiny reads, BOMs cut by the first read are scanned as spaces before a field).
      this.#atFileStart = false;
      while (i + 3 <= total && bytes[i] === 0xef && bytes[i + 1] === 0xbb && bytes[i + 2] === 0xbf) i += 3;
    }
    for (; i < stop; i++) {
      const byte = bytes[i] as number;
      if (byte === LF || byte === CR) {
        if (byte === CR && i + 1 < total && bytes[i + 1] === LF) i++;
        this.#line++;
        if (state === QUOTED) continue;
        if (this.#hasText) this.#records++;
        this.#hasText = false;
        this.#field = 1;
        state = FIELD_START;
        continue;
      }
      switch (state) {
        case UNQUOTED:
          if (byte === delimiter) {
            state = FIELD_START;
            this.#field++;
          } else if (byte === QUOTE) {
            state = SKIP_LINE; // a stray quote: the parser rejects the line
          }
          break;
        case QUOTED:
          if (byte === QUOTE) {
            if (i + 1 < total && bytes[i + 1] === QUOTE) i++;
            else state = AFTER_QUOTE;
          }
          break;
        case FIELD_START:
          if (byte === delimiter) {
            this.#field++;
          } else if (byte === QUOTE) {
            state = QUOTED;
            this.#hasText = true;
            this.#quoteLine = this.#line;
            this.#quoteField = this.#field;
            this.#quoteInHeader = this.#records === 0;
          } else {
            // Printable ASCII is text; anything else may be a (Unicode) space.
            const space = byte > 0x20 && byte < 0x80 ? 0 : utf8SpaceLength(bytes, i, total);
            if (space > 0) {
              i += space - 1;
            } else {
              state = UNQUOTED;
              this.#hasText = true;
            }
          }
          break;
        case AFTER_QUOTE:
          if (byte === delimiter) {
            state = FIELD_START;
            this.#field++;
          } else {
            const space = utf8SpaceLength(bytes, i, total);
            if (space > 0) i += space - 1;
            else state = SKIP_LINE; // text after a closing quote
          }
          break;
        default: // SKIP_LINE: up to the line break
          break;
      }
    }
    this.#state = state;
    if (i > 0) this.#lastByte = bytes[i - 1] ?? -1;
    return i;
  }

  /** The end of the file. */
  finish(): PrescanResult {
    if (this.#hasText) this.#records++;
    const endsWithBreak = this.#lastByte === LF || this.#lastByte === CR;
    const lines = endsWithBreak ? this.#line - 1 : this.#line;
    const result: PrescanResult = { lines, records: this.#records };
    if (this.#state === QUOTED) {
      result.unclosed = {
        line: this.#quoteLine,
        field: this.#quoteField,
        inHeader: this.#quoteInHeader,
        lastLine: Math.max(lines, this.#quoteLine),
      };
    }
    return result;
  }
}
