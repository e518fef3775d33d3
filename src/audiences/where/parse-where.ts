import { AppError } from '../../errors/app-error.js';
import { controlCharacterDetail, findControlCharacter, printable } from '../../text/operator-text.js';
import { whereError, type WhereSource } from './where-error.js';
import { compileWhere } from './where-evaluator.js';
import { attributeAsWritten } from './where-names.js';
import { parseTokens } from './where-parser.js';
import { attributesOf } from './where-syntax.js';
import { tokenize } from './where-tokens.js';
import type { WhereFilter } from './where-filter.js';

/** The longest expression read, in characters as a reader counts them: a long list of values fits, a pasted file does not. */
export const MAX_WHERE_CHARS = 4_000;
/** How many of an audience's attribute names a message lists before it says how many more there are. */
const MAX_LISTED_NAMES = 30;
/** Names this far apart (edits) or nearer are offered as "did you mean". */
const MAX_SUGGESTION_DISTANCE = 2;

/**
 * A `--where` expression (grammar: docs/audiences.md), parsed and compiled once; or AUDIENCE_WHERE_INVALID naming
 * `optionName`, the position (1-based, in characters), what was expected there and how to write it.
 */
export function parseWhere(text: string, optionName = '--where'): WhereFilter {
  const source: WhereSource = { text, optionName };
  if (text.length > MAX_WHERE_CHARS) {
    const length = [...text].length;
    if (length > MAX_WHERE_CHARS) {
      throw whereError(
        source,
        MAX_WHERE_CHARS + 1,
        `the expression has ${length.toLocaleString('en-US')} characters; give at most ${MAX_WHERE_CHARS.toLocaleString('en-US')} ` +
          '(tier in ("gold", "silver") is shorter than a chain of or)',
      );
    }
  }
  // An expression is shown back in messages and histories: nothing in it may act on a terminal, not even a tab.
  const control = findControlCharacter(text);
  if (control !== undefined) throw whereError(source, control.position, `the expression ${controlCharacterDetail(control)}`);
  const tokens = tokenize(source);
  if (tokens.length === 0) throw whereError(source, 1, 'the expression is empty; write a condition, as in country = "DE"');
  const tree = parseTokens(source, tokens);
  const predicate = compileWhere(tree);
  return { text, attributes: attributesOf(tree), matches: predicate };
}

/**
 * Nothing when every attribute `filter` reads is one of `known` (names match exactly, case included); else
 * AUDIENCE_WHERE_INVALID naming the unknown ones, with a near name where there is one, and listing the known ones.
 */
export function checkWhereAttributes(filter: WhereFilter, known: readonly string[], optionName = '--where'): void {
  const knownNames = new Set(known);
  const unknown = filter.attributes.filter((name) => !knownNames.has(name));
  if (unknown.length === 0) return;
  const missing = unknown.map((name) => {
    const near = nearestName(name, known);
    return `${attributeAsWritten(name)}${near === undefined ? '' : ` (did you mean ${attributeAsWritten(near)}?)`}`;
  });
  const listed = known.slice(0, MAX_LISTED_NAMES).map(attributeAsWritten).join(', ');
  const more = known.length > MAX_LISTED_NAMES ? ` and ${known.length - MAX_LISTED_NAMES} more` : '';
  const its = known.length === 0 ? 'it has no attribute at all' : `its attributes are ${listed}${more}`;
  const what = unknown.length === 1 ? 'attribute' : 'attributes';
  throw new AppError(
    'AUDIENCE_WHERE_INVALID',
    printable(`${optionName}: the audience has no ${what} ${missing.join(', ')}; ${its} (names match exactly, case included)`),
  );
}

/** The known name nearest `name`: the same but for case, else at most MAX_SUGGESTION_DISTANCE edits away. */
function nearestName(name: string, known: readonly string[]): string | undefined {
  const folded = name.toLowerCase();
  const sameButCase = known.find((candidate) => candidate.toLowerCase() === folded);
  if (sameButCase !== undefined) return sameButCase;
  let best: { name: string; distance: number } | undefined;
  for (const candidate of known) {
    const distance = editDistance(folded, candidate.toLowerCase(), MAX_SUGGESTION_DISTANCE);
    if (distance <= MAX_SUGGESTION_DISTANCE && distance < Math.min(name.length, best?.distance ?? Infinity))
      best = { name: candidate, distance };
  }
  return best?.name;
}

/** Levenshtein distance, or `limit + 1` as soon as it must exceed `limit` (names can be long; only near ones matter). */
function editDistance(a: string, b: string, limit: number): number {
  if (Math.abs(a.length - b.length) > limit) return limit + 1;
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      const substitution = (previous[j - 1] ?? 0) + (a[i - 1] === b[j - 1] ? 0 : 1);
      current.push(Math.min((previous[j] ?? 0) + 1, (current[j - 1] ?? 0) + 1, substitution));
    }
    if (Math.min(...current) > limit) return limit + 1;
    previous = current;
  }
  return previous[b.length] ?? limit + 1;
}
