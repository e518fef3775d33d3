import { AppError } from '../../errors/app-error.js';
import { parseTextBody } from '../text-plan.js';
import type { CampaignSpec } from './campaign-spec.js';
import type { FieldNames } from './field-names.js';

/** What a campaign sends, as the spec chose it: an approved template, or a text. */
export type MessageChoice =
  | {
      kind: 'template';
      name: string;
      /** The language to send, or with `languageColumn` the fallback for a row whose language the template lacks. */
      language: string | undefined;
      /** Each row's language is in this column. */
      languageColumn: string | undefined;
    }
  | { kind: 'text'; body: string; previewUrl: boolean };

/**
 * What to send: a template with its language, or a text: exactly one of them, and the
 * fields of the other kind refused, each saying how to fix the request. The text's own syntax
 * is checked here too, before any file is opened. `templateOnly`: the caller's own options
 * that only a template campaign uses (the CLI's `--templates`), by name, when given.
 */
export function checkMessage(spec: CampaignSpec, names: FieldNames, templateOnly: readonly string[] = []): MessageChoice {
  const body = spec.text?.body;
  if (body !== undefined) return checkText(spec, body, names, templateOnly);
  const refuse = (problem: string) => new AppError('OPTION_INVALID', problem);
  const { 'template.name': template, 'template.language': language, 'text.body': text } = names;
  if (spec.text?.previewUrl === true) {
    throw refuse(`${names['text.previewUrl']} applies to ${text} only (a template shows the link preview its approved form has)`);
  }
  const name = spec.template?.name;
  const code = spec.template?.language;
  const languageColumn = spec.csv.languageColumn;
  if (name === undefined && code === undefined) {
    throw refuse(
      `say what to send: ${template} NAME ${language} CODE for an approved template (see \`campaign templates list\`), ` +
        `or ${text} "Hi {{name}}, …" for a free-form text to recipients who wrote to the number in the last 24 hours`,
    );
  }
  if (name === undefined)
    throw refuse(`${language} ${code ?? ''} needs ${template} NAME (see \`campaign templates list\`), or use ${text} without ${language}`);
  if (code === undefined && languageColumn === undefined) {
    throw refuse(
      `${template} ${name} needs ${language} CODE, e.g. en_US (see \`campaign templates list\`), ` +
        `or ${names['csv.languageColumn']} COLUMN for a language per row`,
    );
  }
  return { kind: 'template', name, language: code, languageColumn };
}

function checkText(spec: CampaignSpec, body: string, names: FieldNames, templateOnly: readonly string[]): MessageChoice {
  const refuse = (problem: string) => new AppError('OPTION_INVALID', problem);
  const text = names['text.body'];
  const both = [
    spec.template?.name === undefined ? '' : names['template.name'],
    spec.template?.language === undefined ? '' : names['template.language'],
  ].filter((o) => o !== '');
  if (both.length > 0) {
    throw refuse(
      `${text} sends a free-form text, ${both.join(' and ')} an approved template: give one or ` +
        `the other (drop ${both.join(' and ')}, or drop ${text})`,
    );
  }
  const { csv } = spec;
  const given = [
    csv.params === undefined ? '' : names['csv.params'],
    Object.keys(csv.paramColumns ?? {}).length === 0 ? '' : names['csv.paramColumns'],
    csv.headerTextColumn === undefined ? '' : names['csv.headerTextColumn'],
    csv.headerMediaColumn === undefined ? '' : names['csv.headerMediaColumn'],
    csv.buttonUrlColumns === undefined ? '' : names['csv.buttonUrlColumns'],
    spec.trackClicks === true ? names.trackClicks : '',
    csv.clickUrlColumn === undefined ? '' : names['csv.clickUrlColumn'],
    csv.headerFileColumn === undefined ? '' : names['csv.headerFileColumn'],
    csv.languageColumn === undefined ? '' : names['csv.languageColumn'],
    ...templateOnly,
  ].filter((o) => o !== '');
  if (given.length > 0) {
    throw refuse(
      `${given.join(', ')} ${given.length > 1 ? 'are' : 'is'} for templates; with ${text}, name each ` +
        `column in the text itself as {{column}} (e.g. ${text} "Hi {{first_name}}")`,
    );
  }
  parseTextBody(body, text);
  return { kind: 'text', body, previewUrl: spec.text?.previewUrl === true };
}
