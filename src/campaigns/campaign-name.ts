import { basename, extname } from 'node:path';
import { AppError } from '../errors/app-error.js';
import { checkOperatorText, findControlCharacter, replaceControlCharacters } from '../text/operator-text.js';
import { textValueProblem } from './parameter-rules.js';

/** A campaign's name: free text for people, at most this many characters (code points, as a reader counts them). */
export const MAX_NAME_CHARS = 100;
/** The longest slug of a name in a file name: the campaign ID stays in front of it, so the name only helps a reader find it. */
export const MAX_NAME_SLUG_CHARS = 40;

/**
 * A name as the caller gave it, trimmed: 1 to MAX_NAME_CHARS characters, with nothing the operator-text rule refuses
 * (src/text/operator-text.ts: no control character, line break, tab, bidi override or isolate; TEXT_CONTROL_CHARACTER),
 * else OPTION_INVALID naming `field`. No message repeats the name: it may hold what a terminal would act on.
 */
export function checkCampaignName(name: string, field: string): string {
  const trimmed = checkOperatorText(name.trim(), field, 'the campaign name');
  if (textValueProblem(trimmed) === 'VALUE_EMPTY') {
    throw new AppError('OPTION_INVALID', `${field}: the campaign name is empty or only spaces and invisible characters`);
  }
  const length = [...trimmed].length;
  if (length > MAX_NAME_CHARS) {
    throw new AppError('OPTION_INVALID', `${field}: the campaign name has ${length} characters; give at most ${MAX_NAME_CHARS}`);
  }
  return trimmed;
}

function isName(name: string): boolean {
  return findControlCharacter(name) === undefined && textValueProblem(name) === undefined;
}

/**
 * The name a campaign gets when its spec gives none: its file's name without the extension
 * (`spring-promo.csv` → `spring-promo`), with what a name may not hold replaced by spaces and
 * cut to MAX_NAME_CHARS. Undefined when nothing readable is left.
 */
export function nameOfFile(file: string): string | undefined {
  const base = basename(file);
  const stem = base.slice(0, base.length - extname(base).length);
  // What the operator-text rule refuses becomes a space (its escape would only add noise to a name made for reading).
  const cleaned = replaceControlCharacters(stem, ' ').trim();
  const name = [...cleaned].slice(0, MAX_NAME_CHARS).join('').trim();
  return isName(name) ? name : undefined;
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
