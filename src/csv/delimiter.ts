import { AppError } from '../errors/app-error.js';

/** Delimiters we detect, in the order that breaks a tie. */
export const DELIMITER_CANDIDATES = [',', ';', '\t', '|'] as const;

const OPTION_VALUES: Readonly<Record<string, string>> = { ',': ',', ';': ';', '|': '|', '\t': '\t', '\\t': '\t', tab: '\t' };

/**
 * The `--delimiter` value as the character to split on: `,` `;` `|`, or `tab` / `\t` for a
 * tab. Anything else is refused with OPTION_INVALID (naming the field as `name`), before any file is read.
 */
export function parseDelimiterOption(value: string, name = '--delimiter'): string {
  const delimiter = OPTION_VALUES[value] ?? OPTION_VALUES[value.toLowerCase()];
  if (delimiter === undefined) {
    throw new AppError(
      'OPTION_INVALID',
      `${name} ${JSON.stringify(value)}: use one of , ; | or tab (without it, the delimiter is detected from the header)`,
    );
  }
  return delimiter;
}

/** How to print a delimiter: `tab` for a tab, the character in quotes otherwise. */
export function delimiterLabel(delimiter: string): string {
  return delimiter === '\t' ? 'tab' : `"${delimiter}"`;
}

/**
 * The delimiter of a CSV from its first lines: the candidate that appears most often outside
 * quotes in the header line (the first line with any text; lines of only spaces and
 * delimiters, as Excel writes for empty rows, are passed over). `,` when none appears.
 * Ties go to the earlier of `,` `;` tab `|`. Pure (no I/O, nothing of Node's): the New campaign
 * page's script detects with it too (src/csv/csv-head.ts), so the page and the service agree.
 */
export function detectDelimiter(head: string): string {
  const line = new Map<string, number>();
  /** Over every line read: decides when no line has text (a file of empty rows). */
  const all = new Map<string, number>();
  let quoted = false;
  let hasText = false;
  for (const char of head) {
    if (char === '"') {
      quoted = !quoted;
      hasText = true;
    } else if (quoted) {
      hasText = true;
    } else if (char === '\n' || char === '\r') {
      if (hasText) return mostFrequent(line);
      line.clear();
    } else if ((DELIMITER_CANDIDATES as readonly string[]).includes(char)) {
      line.set(char, (line.get(char) ?? 0) + 1);
      all.set(char, (all.get(char) ?? 0) + 1);
    } else if (char.trim() !== '') {
      hasText = true;
    }
  }
  return mostFrequent(hasText ? line : all);
}

function mostFrequent(counts: ReadonlyMap<string, number>): string {
  let best: string = ',';
  let bestCount = 0;
  for (const candidate of DELIMITER_CANDIDATES) {
    const count = counts.get(candidate) ?? 0;
    if (count > bestCount) {
      best = candidate;
      bestCount = count;
    }
  }
  return best;
}
