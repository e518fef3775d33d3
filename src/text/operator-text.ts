import type { z } from 'zod';
import { AppError } from '../errors/app-error.js';

/**
 * One rule for free text that an operator reads later (a campaign's name, a pause reason, a history detail): it holds no
 * character a terminal acts on (ESC, BEL, NUL, CR…) or that reorders what is shown (bidi overrides and isolates). Given
 * text is refused at the edge (checkOperatorText, refuseControlCharacters); anything printed is neutralised (printable and
 * its kin), since a text stored before the rule, or from elsewhere (Meta's error messages and template names, a cell), may
 * still hold one.
 */

/** C0 (tab and line breaks too), DEL, C1 (NEL too), line and paragraph separators, bidi embeddings, overrides and isolates. */
const RANGES = '\\u0000-\\u001f\\u007f-\\u009f\\u2028\\u2029\\u202a-\\u202e\\u2066-\\u2069';
const REFUSED = new RegExp(`[${RANGES}]`, 'u');
const REFUSED_ALL = new RegExp(`[${RANGES}]`, 'gu');
const REFUSED_RUNS = new RegExp(`[${RANGES}]+`, 'gu');
/** What breaks no layout on a page or in a CSV cell, so those keep it: tab, LF, CR. */
const LAYOUT = new Set(['\t', '\n', '\r']);

/**
 * A text without any of them. A plain character class of \u escapes: the OpenAPI document carries it as `pattern`, and
 * fuzzers draw strings from it.
 */
export const OPERATOR_TEXT_PATTERN = new RegExp(`^[^${RANGES}]*$`);

/** The first refused character of a text: its code point and where it is (1-based, in characters as a reader counts them). */
export interface ControlCharacter {
  codePoint: number;
  position: number;
}

export function findControlCharacter(text: string): ControlCharacter | undefined {
  const match = REFUSED.exec(text);
  if (match === null) return undefined;
  return { codePoint: match[0].codePointAt(0) ?? 0, position: [...text.slice(0, match.index)].length + 1 };
}

const NAMES: Record<number, string> = {
  0x00: 'NUL',
  0x07: 'BEL',
  0x08: 'BS',
  0x09: 'TAB',
  0x0a: 'LF',
  0x0b: 'VT',
  0x0c: 'FF',
  0x0d: 'CR',
  0x1b: 'ESC',
  0x7f: 'DEL',
  0x85: 'NEL',
  0x9b: 'CSI',
  0x9d: 'OSC',
  0x2028: 'LINE SEPARATOR',
  0x2029: 'PARAGRAPH SEPARATOR',
  0x202a: 'LRE',
  0x202b: 'RLE',
  0x202c: 'PDF',
  0x202d: 'LRO',
  0x202e: 'RLO',
  0x2066: 'LRI',
  0x2067: 'RLI',
  0x2068: 'FSI',
  0x2069: 'PDI',
};

/** What the character is, for the message: what it does matters more to the reader than its number. */
function kindOf(codePoint: number): string {
  if (codePoint === 0x09) return 'a tab; use a space';
  if ([0x0a, 0x0d, 0x85, 0x2028, 0x2029].includes(codePoint)) return 'a line break; give it on one line';
  if (codePoint >= 0x202a) return 'a bidirectional override or isolate, which can disguise text';
  return 'a control character, invisible in most editors';
}

/** "contains a control character, invisible in most editors (U+001B ESC at character 7)": never the text itself. */
export function controlCharacterDetail(found: ControlCharacter): string {
  const name = NAMES[found.codePoint];
  const code = `U+${found.codePoint.toString(16).toUpperCase().padStart(4, '0')}${name === undefined ? '' : ` ${name}`}`;
  return `contains ${kindOf(found.codePoint)} (${code} at character ${found.position})`;
}

/**
 * The text as given, or TEXT_CONTROL_CHARACTER naming `field` (`--reason`, `name`), the character and where it is; `what`
 * says what the text is ("the campaign name"). The message never repeats the text: it may hold what a terminal acts on.
 */
export function checkOperatorText(text: string, field: string, what = 'the text'): string {
  const found = findControlCharacter(text);
  if (found !== undefined) throw new AppError('TEXT_CONTROL_CHARACTER', `${field}: ${what} ${controlCharacterDetail(found)}`);
  return text;
}

/**
 * The rule as a zod check on a string schema (`refuseControlCharacters(z.string().max(500))`), for the API, the pages' forms
 * and specs: its pattern is OPERATOR_TEXT_PATTERN, so the OpenAPI document states it; the message says which character
 * and where (the caller's path names the field). zod is imported for its types only: the CLI's start-up, which prints
 * through this module, does not load it.
 */
export function refuseControlCharacters(schema: z.ZodString): z.ZodString {
  return schema.regex(OPERATOR_TEXT_PATTERN, {
    error: (issue) => {
      const found = typeof issue.input === 'string' ? findControlCharacter(issue.input) : undefined;
      return found === undefined ? 'contains a control or bidi character' : controlCharacterDetail(found);
    },
  });
}

/** `\x1b`, `\n`, `\u202e`: the character made visible, as a programmer would write it. */
function escaped(character: string): string {
  if (character === '\n') return '\\n';
  if (character === '\r') return '\\r';
  if (character === '\t') return '\\t';
  const code = character.codePointAt(0) ?? 0;
  return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
}

/**
 * A text as a terminal may print it on one line: every refused character shown as its escape (`\x1b`, `\n`, `\u202e`),
 * never dropped, so the reader sees that something was there and the text cannot act on the terminal or fake a line.
 */
export function printable(text: string): string {
  return text.replace(REFUSED_ALL, escaped);
}

/**
 * printable for a page, a CSV cell or a JSON document: tab and line breaks stay (they only lay the text out there), every
 * other refused character becomes its `\u` escape (`\u202e`), which JSON also reads as the character itself, so a JSON
 * document put into a page keeps its data.
 */
export function printableBlock(text: string): string {
  return text.replace(REFUSED_ALL, (character) => (LAYOUT.has(character) ? character : unicodeEscape(character)));
}

/**
 * JSON text as a terminal may print it: JSON.stringify escapes C0 itself but leaves DEL, C1 and bidi characters raw; they
 * become `\u` escapes, the same document to a parser.
 */
export function printableJson(json: string): string {
  return printableBlock(json);
}

function unicodeEscape(character: string): string {
  return `\\u${(character.codePointAt(0) ?? 0).toString(16).padStart(4, '0')}`;
}

/** Every run of refused characters replaced by `by`: for a default made from other text (a file's name), where an escape is noise. */
export function replaceControlCharacters(text: string, by: string): string {
  return text.replace(REFUSED_RUNS, by);
}
