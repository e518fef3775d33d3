import { RECORD_LIMIT } from './limits.js';

/** How a physical line ended. CRLF is one break; it reaches quoted values as `\n`. */
export const BREAK_EOF = 0;
export const BREAK_LF = 1;
export const BREAK_CR = 2;
export type LineBreak = typeof BREAK_EOF | typeof BREAK_LF | typeof BREAK_CR;

/**
 * Receives each physical line: its text without the break (at most RECORD_LIMIT characters),
 * how it ended, how many characters past RECORD_LIMIT were dropped (counted, never kept),
 * and whether it holds U+FFFD (bytes that were not UTF-8).
 */
export type LineSink = (text: string, ending: LineBreak, dropped: number, badBytes: boolean) => void;

const CR = 0x0d;
const REPLACEMENT = '\uFFFD';

/**
 * Decoded text → physical lines. LF, CRLF and a lone CR (old Mac exports) each end a line.
 * A line is cut into records by the record parser, which can then re-read lines after a
 * broken multi-line record (see record-parser.ts); splitting first keeps that look-ahead a
 * list of bounded strings.
 *
 * Memory stays bounded whatever the file holds: a line longer than RECORD_LIMIT keeps its
 * first RECORD_LIMIT characters and only counts the rest, so a 5 MB cell never becomes a
 * 5 MB string (the record it is in is rejected as too long).
 */
export class LineSplitter {
  readonly #sink: LineSink;
  /** The start of a line cut by the end of the previous chunk. */
  #carry = '';
  #carryBad = false;
  #dropped = 0;
  /** The previous chunk ended with CR: whether it is a CRLF depends on the next chunk. */
  #heldCr = false;

  constructor(sink: LineSink) {
    this.#sink = sink;
  }

  push(chunk: string): void {
    if (this.#heldCr) {
      this.#heldCr = false;
      chunk = `\r${chunk}`; // rare: one copy of a chunk per CRLF cut in two
    }
    let end = chunk.length;
    if (end > 0 && chunk.charCodeAt(end - 1) === CR) {
      this.#heldCr = true;
      end--;
    }
    const bad = chunk.includes(REPLACEMENT);
    // The next CR and the next LF, each searched again only once passed (a file with one
    // stray CR must not make every line scan the rest of the chunk for CR).
    let lf = chunk.indexOf('\n');
    let cr = chunk.indexOf('\r');
    if (cr >= end) cr = -1;
    let start = 0;
    while (lf !== -1 || cr !== -1) {
      const lineStart = start;
      let at: number;
      let ending: LineBreak;
      if (cr !== -1 && (lf === -1 || cr < lf)) {
        at = cr;
        if (cr + 1 === lf) {
          ending = BREAK_LF;
          start = cr + 2;
          lf = chunk.indexOf('\n', start);
        } else {
          ending = BREAK_CR;
          start = cr + 1;
        }
        cr = chunk.indexOf('\r', start);
        if (cr >= end) cr = -1;
      } else {
        at = lf;
        ending = BREAK_LF;
        start = lf + 1;
        lf = chunk.indexOf('\n', start);
      }
      this.#line(chunk, lineStart, at, ending, bad);
    }
    if (start < end) this.#keep(chunk, start, end, bad);
  }

  /** The end of the file: the last line, when it has no break after it. */
  end(): void {
    if (this.#heldCr) {
      this.#heldCr = false;
      this.#line('', 0, 0, BREAK_CR, false);
    }
    if (this.#carry.length > 0 || this.#dropped > 0) this.#line('', 0, 0, BREAK_EOF, false);
  }

  /** Sends the line `chunk[from, to)`, after what the previous chunks left of it. */
  #line(chunk: string, from: number, to: number, ending: LineBreak, chunkBad: boolean): void {
    if (this.#carry.length === 0 && this.#dropped === 0) {
      // The usual case: the whole line is in this chunk.
      if (to - from <= RECORD_LIMIT) {
        const text = chunk.slice(from, to);
        this.#sink(text, ending, 0, chunkBad && text.includes(REPLACEMENT));
      } else {
        const text = chunk.slice(from, from + RECORD_LIMIT);
        this.#sink(text, ending, to - from - RECORD_LIMIT, chunkBad && text.includes(REPLACEMENT));
      }
      return;
    }
    this.#keep(chunk, from, to, chunkBad);
    const text = this.#carry;
    const bad = this.#carryBad;
    const dropped = this.#dropped;
    this.#carry = '';
    this.#carryBad = false;
    this.#dropped = 0;
    this.#sink(text, ending, dropped, bad);
  }

  /** Holds `chunk[from, to)` as the start of a line, up to RECORD_LIMIT; counts the rest. */
  #keep(chunk: string, from: number, to: number, chunkBad: boolean): void {
    const room = RECORD_LIMIT - this.#carry.length;
    const take = Math.min(room, to - from);
    if (take > 0) {
      const piece = chunk.slice(from, from + take);
      this.#carry += piece;
      this.#carryBad ||= chunkBad && piece.includes(REPLACEMENT);
    }
    this.#dropped += to - from - take;
  }
}
