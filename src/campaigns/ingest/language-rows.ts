import { languageKey } from '../../templates/language-code.js';
import type { CampaignDefinition } from '../campaign.js';
import type { SendPlan } from '../send-plan.js';
import { boundedBadValue } from './bad-value.js';
import { resolveColumns, type ColumnMapping } from './column-mapping.js';
import { checkRow, type RowRules, type RowVerdict } from './row-check.js';

type Languages = NonNullable<CampaignDefinition['languages']>;

/**
 * A row of a campaign with a language per row (`--language-column`): checked against the plan
 * of its language's translation, or the fallback's (`--language`) when the template has none
 * in it; with no fallback it is skipped as TEMPLATE_LANGUAGE_MISSING. Languages compare with
 * `-` and `_` alike and in either case (`pt-br` is `pt_BR`).
 */
export function languageRowCheck(
  languages: Languages,
  fallback: SendPlan,
  header: readonly string[],
  phoneColumn: { name: string; option: string; file: string },
  rules: Omit<RowRules, 'plan' | 'mapping'>,
): (fields: readonly string[]) => RowVerdict {
  const at = header.indexOf(languages.column);
  const phoneAt = header.indexOf(phoneColumn.name);
  const mappings = new Map<SendPlan, ColumnMapping>(
    languages.plans.map((plan) => [plan, resolveColumns(header, plan, phoneColumn.name, phoneColumn.file, phoneColumn.option)]),
  );
  const byLanguage = new Map<string, SendPlan>();
  return (fields) => {
    const cell = (fields[at] ?? '').trim();
    let plan = byLanguage.get(cell);
    if (plan === undefined) {
      plan = languages.plans.find((p) => cell !== '' && sameRowLanguage(p.language, cell)) ?? (languages.fallback ? fallback : undefined);
      if (plan !== undefined && byLanguage.size < 1000) byLanguage.set(cell, plan);
    }
    if (plan === undefined) {
      const approved = languages.plans.map((p) => p.language).join(', ');
      return {
        ok: false,
        skip: true,
        phone: boundedBadValue((fields[phoneAt] ?? '').trim()),
        reason: 'TEMPLATE_LANGUAGE_MISSING',
        detail:
          `column "${languages.column}": ${cell === '' ? 'no language' : `"${boundedBadValue(cell)}"`}; template ${fallback.name} ` +
          `is approved in ${approved}, and there is no fallback (give one with --language)`,
      };
    }
    return checkRow(fields, { ...rules, plan, mapping: mappings.get(plan)! });
  };
}

/** A cell's language against a translation's: `-` and `_` alike (languageKey), and either case, as people type them. */
function sameRowLanguage(translation: string, cell: string): boolean {
  return languageKey(translation).toLowerCase() === languageKey(cell).toLowerCase();
}
