import { ProblemsError } from '../errors/problems-error.js';
import { sameLanguage } from '../templates/language-code.js';
import { requirementsOf, type TemplateRequirements } from '../templates/template-requirements.js';
import type { TemplateLookup } from '../templates/template-registry.js';
import type { FieldNames } from './spec/field-names.js';

/** What a campaign with a language per row sends: every approved translation of the template, and which one is the fallback. */
export interface Translations {
  /** The column holding each row's language. */
  column: string;
  /** The fallback's (`--language`) requirements, when one was given: rows in a language the template lacks get it. */
  fallback: TemplateRequirements | undefined;
  /** Every APPROVED translation, sorted by language; the fallback among them. */
  approved: TemplateRequirements[];
}

/**
 * The translations of a template for `--language-column`, from the lookup of its name: each
 * APPROVED one is sendable. The fallback, when given, must be one of them; a name with no
 * approved translation at all is refused, saying what exists.
 */
export function translationsOf(
  found: TemplateLookup,
  name: string,
  fallback: string | undefined,
  column: string,
  names: FieldNames,
): Translations {
  const approved = found.sameName.filter((t) => t.status === 'APPROVED').map(requirementsOf);
  const refuse = (detail: string, field: string) => new ProblemsError([{ code: 'TEMPLATE_MAPPING_INVALID', detail, field }]);
  const exists = found.sameName.map((t) => `${t.language} (${t.status})`).join(', ');
  if (approved.length === 0) {
    throw refuse(
      `Template ${name} has no approved translation` +
        (exists === '' ? '' : `; it exists in ${exists}`) +
        ' (see `campaign templates list`). Nothing was enqueued.',
      names['template.name'],
    );
  }
  if (fallback === undefined) return { column, fallback: undefined, approved };
  const chosen = approved.find((t) => sameLanguage(t.language, fallback));
  if (chosen === undefined) {
    throw refuse(
      `Template ${name} has no approved ${fallback} translation to fall back to; approved: ` +
        `${approved.map((t) => t.language).join(', ')} (see \`campaign templates list\`). Nothing was enqueued.`,
      names['template.language'],
    );
  }
  return { column, fallback: chosen, approved };
}
