import type { RejectionReason } from './rejection-reasons.js';

/**
 * Meta's rules for a template variable's text (reference §2.3, error 100/132018): not empty,
 * no line break, no tab, no more than 4 spaces in a row. Used by the producer on every row
 * and again by the worker on every job, so a request Meta would refuse never leaves.
 */
export type ValueProblem = Extract<RejectionReason, 'VALUE_EMPTY' | 'VALUE_LINE_BREAK' | 'VALUE_TAB' | 'VALUE_SPACES'>;

const SPACE_RUN = / {5,}/;

export function valueProblem(value: string): ValueProblem | undefined {
  if (value === '') return 'VALUE_EMPTY';
  if (value.includes('\n') || value.includes('\r')) return 'VALUE_LINE_BREAK';
  if (value.includes('\t')) return 'VALUE_TAB';
  if (SPACE_RUN.test(value)) return 'VALUE_SPACES';
  // Only spaces is no value either (the producer trims; this guards the worker too).
  if (value.trim() === '') return 'VALUE_EMPTY';
  return undefined;
}

/** `--fix-whitespace`: line breaks, tabs and runs of spaces become one space. */
export function collapseWhitespace(value: string): string {
  return value.replace(/[\r\n\t ]+/g, ' ').trim();
}

export const VALUE_PROBLEM_TEXT: Record<ValueProblem, string> = {
  VALUE_EMPTY: 'is empty; every template variable needs a value',
  VALUE_LINE_BREAK: 'contains a line break; Meta refuses line breaks in variables (put it on one line, or use --fix-whitespace)',
  VALUE_TAB: 'contains a tab; Meta refuses tabs in variables (use a space, or --fix-whitespace)',
  VALUE_SPACES: 'contains more than 4 spaces in a row; Meta refuses that (collapse them, or use --fix-whitespace)',
};

/** Meta's limits on the rendered texts (reference §4): body 1,024 characters, text header 60. */
export const MAX_BODY_CHARS = 1024;
export const MAX_HEADER_CHARS = 60;
