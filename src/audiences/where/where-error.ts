import { AppError } from '../../errors/app-error.js';
import { printable } from '../../text/operator-text.js';

/** The expression being read and the option (or field) that gave it, which every message names first. */
export interface WhereSource {
  readonly text: string;
  readonly optionName: string;
}

/** Where a problem is: UTF-16 offsets into the text, `contextStart` where the excerpt shown with it begins (a token or two before). */
export interface WhereSpot {
  readonly start: number;
  readonly end: number;
  readonly contextStart: number;
}

/** How much of the text before the problem, and of the problem itself, an excerpt shows (in characters as a reader counts them). */
const MAX_CONTEXT_CHARS = 30;
const MAX_TOKEN_CHARS = 40;

/** A 1-based column in characters as a reader counts them (an emoji is one), as an editor's status bar shows it. */
export function positionOf(text: string, index: number): number {
  return [...text.slice(0, index)].length + 1;
}

function head(text: string, max: number): string {
  const characters = [...text];
  return characters.length > max ? `${characters.slice(0, max - 1).join('')}…` : text;
}

function tail(text: string, max: number): string {
  const characters = [...text];
  return characters.length > max ? `…${characters.slice(characters.length - max + 1).join('')}` : text;
}

/**
 * `("tier in gold")`: the problem's token with a token or two before it, as written; `(the end, after "country =")` when
 * the text ends where something was expected.
 */
function excerptAt(text: string, spot: WhereSpot): string {
  const before = tail(text.slice(spot.contextStart, spot.start), MAX_CONTEXT_CHARS);
  if (spot.start >= text.length) return `the end, after "${printable(before.trimEnd())}"`;
  return `"${printable(before + head(text.slice(spot.start, spot.end), MAX_TOKEN_CHARS))}"`;
}

/**
 * AUDIENCE_WHERE_INVALID: `--where: at position 14 ("tier in gold"): expected "(" after "in"; write tier in ("gold", "silver")`.
 * `problem` says what was expected there and how to write it instead.
 */
export function whereSyntaxError(source: WhereSource, spot: WhereSpot, problem: string): AppError {
  const position = positionOf(source.text, spot.start);
  return new AppError(
    'AUDIENCE_WHERE_INVALID',
    `${source.optionName}: at position ${position} (${excerptAt(source.text, spot)}): ${problem}`,
  );
}

/** AUDIENCE_WHERE_INVALID about the expression as a whole (empty, too long), at a position but with no excerpt to show. */
export function whereError(source: WhereSource, position: number, problem: string): AppError {
  return new AppError('AUDIENCE_WHERE_INVALID', `${source.optionName}: at position ${position}: ${problem}`);
}
