import type { CampaignFlags } from '../../campaigns/spec/campaign-flags.js';
import type { CampaignChoice } from './campaign-choice.js';
import { slotsOf } from './template-model.js';

/** The fields of the spec the page sets: `POST /api/v1/campaigns` takes them as `campaign send`'s flags, camelCased. */
export type PostedSpec = Pick<
  CampaignFlags,
  | 'name'
  | 'phoneNumberId'
  | 'priority'
  | 'phoneColumn'
  | 'at'
  | 'validFor'
  | 'expiresAt'
  | 'window'
  | 'days'
  | 'text'
  | 'template'
  | 'language'
  | 'params'
  | 'param'
  | 'headerTextColumn'
  | 'headerImageColumn'
  | 'buttonUrlColumn'
  | 'delimiter'
>;

/** A field the operator left empty: not given, so the service applies its default, as for a flag not given. */
function empty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  return typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

function compact(spec: PostedSpec): PostedSpec {
  return Object.fromEntries(Object.entries(spec).filter(([, value]) => !empty(value)));
}

/** A template's fields: its name and language, and the columns of its variables, header and buttons. */
function templateFields(choice: CampaignChoice): PostedSpec {
  const model = choice.model;
  if (model == null) return {};
  const mapping = choice.mapping ?? {};
  const fields: PostedSpec = {
    template: model.name,
    language: model.language,
    headerTextColumn: mapping['header:text'] ?? undefined,
    headerImageColumn: mapping['header:media'] ?? undefined,
  };
  const body = model.body.variables.map((v) => mapping[`body:${v}`] ?? '');
  if (model.positional) {
    if (body.length > 0) fields.params = body;
  } else if (body.length > 0) {
    // A variable left without a column is left out: the service then looks for a column of its name, and names it when none is.
    fields.param = Object.fromEntries(model.body.variables.flatMap((v, i) => (body[i] ? [[v, body[i]]] : [])));
  }
  const buttons = slotsOf(model)
    .filter((s) => s.kind === 'button')
    .map((s) => mapping[s.key] ?? '');
  if (buttons.length > 0) fields.buttonUrlColumn = buttons;
  return fields;
}

/**
 * The spec the API takes for the page's choices: campaign send's flags, camelCased
 * (src/campaigns/spec/campaign-flags.ts); empty fields are left out.
 */
export function specOf(choice: CampaignChoice): PostedSpec {
  const spec: PostedSpec = {
    name: choice.name,
    phoneNumberId: choice.phoneNumberId,
    priority: choice.priority,
    phoneColumn: choice.phoneColumn,
    at: choice.at,
    validFor: choice.validFor,
    expiresAt: choice.expiresAt,
    window: choice.hours,
    days: choice.days,
    ...(choice.kind === 'text' ? { text: choice.text } : templateFields(choice)),
  };
  const delimiter = choice.delimiter;
  if (delimiter !== undefined && delimiter !== ',') spec.delimiter = delimiter === '\t' ? 'tab' : delimiter;
  return compact(spec);
}
