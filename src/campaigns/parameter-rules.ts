import type { RejectionReason } from './rejection-reasons.js';

/**
 * Meta's rules for a template variable's text (reference §2.3, error 100/132018) and what we
 * refuse besides, so nothing malformed or deceptive reaches the API: not empty (nor only
 * invisible characters), no line break of any kind, no tab, no other control character, no
 * bidi override or isolate, no more than 4 spaces in a row. Used by the producer on every
 * row and again by the worker on every send.
 */
export type ValueProblem = Extract<
  RejectionReason,
  'VALUE_EMPTY' | 'VALUE_LINE_BREAK' | 'VALUE_TAB' | 'VALUE_SPACES' | 'VALUE_CONTROL_CHAR' | 'VALUE_BIDI_CONTROL'
>;

// Control characters are what these patterns are for.
/* eslint-disable no-control-regex */
/** Anything worth a closer look; a clean value (almost every one) is decided by this one test. */
const SUSPECT = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]| {5}/;
/** LF, CR, NEL, line separator, paragraph separator. */
const LINE_BREAK = /[\n\r\u0085\u2028\u2029]/;
/** C0 (tab and line breaks have their own reasons), DEL, C1. */
export const CONTROL = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\u007f-\u0084\u0086-\u009f]/;
/** Embeddings and overrides (LRE, RLE, PDF, LRO, RLO) and isolates (LRI, RLI, FSI, PDI): they reorder what is shown. */
/* eslint-enable no-control-regex */
export const BIDI_CONTROL = /[\u202a-\u202e\u2066-\u2069]/;
const SPACE_RUN = / {5,}/;
/**
 * Nothing a reader would see: spaces, default-ignorable characters (zero-width space and
 * joiners, word joiner, BOM, LRM/RLM/ALM, soft hyphen, Hangul fillers…) and the braille blank.
 * Marks such as RLM inside visible text are fine (Arabic and Hebrew text uses them).
 */
export const INVISIBLE_ONLY = /^[\p{White_Space}\p{Default_Ignorable_Code_Point}\u2800\u3164\uffa0\u115f\u1160]*$/u;

export function valueProblem(value: string): ValueProblem | undefined {
  if (value === '') return 'VALUE_EMPTY';
  if (SUSPECT.test(value)) {
    if (LINE_BREAK.test(value)) return 'VALUE_LINE_BREAK';
    if (value.includes('\t')) return 'VALUE_TAB';
    if (CONTROL.test(value)) return 'VALUE_CONTROL_CHAR';
    if (BIDI_CONTROL.test(value)) return 'VALUE_BIDI_CONTROL';
    if (SPACE_RUN.test(value)) return 'VALUE_SPACES';
  }
  if (INVISIBLE_ONLY.test(value)) return 'VALUE_EMPTY';
  return undefined;
}

/**
 * The rules for a value filled into a free-form text body (`campaign send --text`), decided
 * rule by rule against valueProblem's:
 * - VALUE_EMPTY stays: an empty placeholder leaves a hole in the sentence ("Hi , your order…"),
 *   almost always a missing cell, and an invisible-only value is the same hole.
 * - VALUE_LINE_BREAK goes: a text body may span lines (reference §1.3 sets no such rule; it
 *   is a template-parameter rule). Every break valueProblem knows (LF, CR, NEL, U+2028,
 *   U+2029) is allowed, so a multi-line cell from a spreadsheet is sent as written.
 * - VALUE_TAB and VALUE_SPACES go: they too are Meta's template-parameter rules (error 100 on
 *   a parameter), not text-body rules; a tab or a run of spaces is shown as written.
 * - VALUE_CONTROL_CHAR stays (C0 other than tab and line breaks, DEL, C1 other than NEL):
 *   invisible, never meant, and an ESC or NUL has no place in a chat message.
 * - VALUE_BIDI_CONTROL stays: overrides and isolates can disguise text (`Invoice\u202Etxt.exe`)
 *   in free text exactly as in a template.
 * `--fix-whitespace` still collapses whitespace when asked (the producer applies it first).
 */
export function textValueProblem(value: string): ValueProblem | undefined {
  if (value === '') return 'VALUE_EMPTY';
  if (SUSPECT.test(value)) {
    if (CONTROL.test(value)) return 'VALUE_CONTROL_CHAR';
    if (BIDI_CONTROL.test(value)) return 'VALUE_BIDI_CONTROL';
  }
  if (INVISIBLE_ONLY.test(value)) return 'VALUE_EMPTY';
  return undefined;
}

/**
 * `--fix-whitespace`: line breaks (NEL, U+2028, U+2029 too), tabs and runs of spaces become one space. Control and bidi characters stay
 * refused.
 */
export function collapseWhitespace(value: string): string {
  return value.replace(/[\r\n\t \u0085\u2028\u2029]+/g, ' ').trim();
}

export const VALUE_PROBLEM_TEXT: Record<ValueProblem, string> = {
  VALUE_EMPTY: 'is empty or only spaces and invisible characters; every template variable needs a visible value',
  VALUE_LINE_BREAK: 'contains a line break; Meta refuses line breaks in variables (put it on one line, or use --fix-whitespace)',
  VALUE_TAB: 'contains a tab; Meta refuses tabs in variables (use a space, or --fix-whitespace)',
  VALUE_SPACES: 'contains more than 4 spaces in a row; Meta refuses that (collapse them, or use --fix-whitespace)',
  VALUE_CONTROL_CHAR: 'contains a control character, invisible in most editors; remove it from the cell',
  VALUE_BIDI_CONTROL: 'contains a bidirectional override or isolate, which can disguise text; remove it',
};

const NAMES: Record<number, string> = {
  0: 'NUL',
  0x1b: 'ESC',
  0x7f: 'DEL',
  0x0b: 'VT',
  0x0c: 'FF',
  0x01: 'SOH',
  0x08: 'BS',
  0x85: 'NEL',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202e: 'RLO',
  0x202d: 'LRO',
  0x202a: 'LRE',
  0x202b: 'RLE',
  0x202c: 'PDF',
  0x2066: 'LRI',
  0x2067: 'RLI',
  0x2068: 'FSI',
  0x2069: 'PDI',
};

/** The rule's text, and for a character rule which character and where (1-based), e.g. "(U+001B ESC at character 4)". */
export function valueProblemDetail(value: string, problem: ValueProblem): string {
  const where = problemCharacter(value, problem);
  return where === undefined ? VALUE_PROBLEM_TEXT[problem] : `${VALUE_PROBLEM_TEXT[problem]} (${where})`;
}

/** For a character rule, which character and where (1-based), e.g. "U+001B ESC at character 4"; undefined for the others. */
export function problemCharacter(value: string, problem: ValueProblem): string | undefined {
  const pattern =
    problem === 'VALUE_CONTROL_CHAR'
      ? CONTROL
      : problem === 'VALUE_BIDI_CONTROL'
        ? BIDI_CONTROL
        : problem === 'VALUE_LINE_BREAK'
          ? LINE_BREAK
          : undefined;
  const match = pattern?.exec(value);
  if (match === null || match === undefined) return undefined;
  const code = match[0].charCodeAt(0);
  const name = NAMES[code];
  return `U+${code.toString(16).toUpperCase().padStart(4, '0')}${name === undefined ? '' : ` ${name}`} at character ${match.index + 1}`;
}

/** Meta's limits on the rendered texts (reference §4): body 1,024 characters, text header 60. */
export const MAX_BODY_CHARS = 1024;
export const MAX_HEADER_CHARS = 60;
/** A carousel card's body, rendered: "the card body text limit of 160 characters" (media-card-carousel-templates). */
export const MAX_CARD_BODY_CHARS = 160;
/**
 * A text message's body (reference §1.3: `text.body` ≤ 4096, the OpenAPI `maxLength`). Counted
 * as JavaScript's `length`, in UTF-16 code units, as every other limit here and the sandbox
 * are: an emoji outside the BMP counts 2. JSON Schema's maxLength counts code points, so this
 * never sends a body Meta could find too long; at worst it refuses one of 4,096 code points
 * made of more than 4,096 units.
 */
export const MAX_TEXT_CHARS = 4096;
