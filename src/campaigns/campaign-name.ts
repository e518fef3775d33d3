import { basename, extname } from 'node:path';
import { AppError } from '../errors/app-error.js';
import { problemCharacter, textValueProblem, valueProblem, type ValueProblem } from './parameter-rules.js';

/** A campaign's name: free text for people, at most this many characters (code points, as a reader counts them). */
export const MAX_NAME_CHARS = 100;
/** The longest slug of a name in a file name: the campaign ID stays in front of it, so the name only helps a reader find it. */
export const MAX_NAME_SLUG_CHARS = 40;

const NAME_PROBLEM_TEXT: Record<ValueProblem, string> = {
  VALUE_EMPTY: 'is empty or only spaces and invisible characters',
  VALUE_LINE_BREAK: 'contains a line break; give it on one line',
  VALUE_TAB: 'contains a tab; use a space',
  VALUE_SPACES: 'contains a run of spaces',
  VALUE_CONTROL_CHAR: 'contains a control character, invisible in most editors',
  VALUE_BIDI_CONTROL: 'contains a bidirectional override or isolate, which can disguise text',
};

/**
 * A name as the caller gave it, trimmed, or OPTION_INVALID naming `field`: 1 to
 * MAX_NAME_CHARS characters, one line, no control character and no bidi override or isolate
 * (the rules of a template variable, runs of spaces allowed). The message never repeats the
 * name: it may hold what a terminal would act on.
 */
export function checkCampaignName(name: string, field: string): string {
  const trimmed = name.trim();
  const problem = nameProblem(trimmed);
  if (problem !== undefined) {
    const where = problemCharacter(trimmed, problem);
    throw new AppError(
      'OPTION_INVALID',
      `${field}: the campaign name ${NAME_PROBLEM_TEXT[problem]}${where === undefined ? '' : ` (${where})`}`,
    );
  }
  const length = [...trimmed].length;
  if (length > MAX_NAME_CHARS) {
    throw new AppError('OPTION_INVALID', `${field}: the campaign name has ${length} characters; give at most ${MAX_NAME_CHARS}`);
  }
  return trimmed;
}

function nameProblem(name: string): ValueProblem | undefined {
  const problem = valueProblem(name);
  // A run of spaces is Meta's rule for a variable, not a name's; what else it hides, the text rules say.
  return problem === 'VALUE_SPACES' ? textValueProblem(name) : problem;
}

/**
 * The name a campaign gets when its spec gives none: its file's name without the extension
 * (`spring-promo.csv` → `spring-promo`), with what a name may not hold replaced by spaces and
 * cut to MAX_NAME_CHARS. Undefined when nothing readable is left.
 */
export function nameOfFile(file: string): string | undefined {
  const base = basename(file);
  const stem = base.slice(0, base.length - extname(base).length);
  // Control, bidi and line-break characters, as the rules refuse them.
  // eslint-disable-next-line no-control-regex
  const cleaned = stem.replace(/[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]+/g, ' ').trim();
  const name = [...cleaned].slice(0, MAX_NAME_CHARS).join('').trim();
  return nameProblem(name) === undefined ? name : undefined;
}

/**
 * A name as a file system takes it anywhere: lower-case ASCII letters and digits joined by
 * single hyphens (accents dropped, anything else a separator), at most MAX_NAME_SLUG_CHARS;
 * '' when nothing is left (`Ação de Natal!` → `acao-de-natal`, `=HYPERLINK("x")` → `hyperlink-x`).
 */
export function nameSlug(name: string): string {
  const ascii = name
    .normalize('NFKD')
    .replace(/\p{M}+/gu, '')
    .toLowerCase();
  const words = ascii.replace(/[^a-z0-9]+/g, '-').replace(/^-+|-+$/g, '');
  return words.slice(0, MAX_NAME_SLUG_CHARS).replace(/-+$/, '');
}

/**
 * The report's file name in REPORTS_DIR: `<id>-<slug of its name>.csv`, or `<id>.csv` for a
 * campaign without a name (created before names, or whose name leaves no slug) or named as
 * its ID (a file named after the campaign). The ID stays first, so the files sort and are
 * found by it.
 */
export function reportFileName(campaignId: string, name: string | undefined): string {
  const slug = name === undefined ? '' : nameSlug(name);
  return slug === '' || slug === nameSlug(campaignId) ? `${campaignId}.csv` : `${campaignId}-${slug}.csv`;
}
