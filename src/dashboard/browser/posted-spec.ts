import type { CampaignFlags } from '../../campaigns/spec/campaign-flags.js';
import type { CampaignChoice } from './campaign-choice.js';
import { slotsOf } from './slot-choices.js';

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
  | 'param'
  | 'delimiter'
  | 'audience'
  | 'where'
  | 'testTo'
>;

/** A field the operator left empty: not given, so the service applies its default, as for a flag not given. */
function empty(value: unknown): boolean {
  if (value === undefined || value === null || value === '') return true;
  return typeof value === 'object' && !Array.isArray(value) && Object.keys(value).length === 0;
}

function compact(spec: PostedSpec): PostedSpec {
  return Object.fromEntries(Object.entries(spec).filter(([, value]) => !empty(value)));
}

/**
 * A template's fields: its name and language, and each mapped slot's column by the slot's name
 * (`param`, as `--param SLOT=COLUMN`), the one way that names every kind of slot. A slot left
 * without a column is left out: the service then fills it from a column named as it, leaves an
 * optional one out of the send, and names a required one in its refusal.
 */
function templateFields(choice: CampaignChoice): PostedSpec {
  const model = choice.model;
  if (model == null) return {};
  const mapping = choice.mapping ?? {};
  const param: Record<string, string> = {};
  for (const slot of slotsOf(model)) {
    const column = mapping[slot.name];
    if (column) param[slot.name] = column;
  }
  return { template: model.name, language: model.language, param };
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
  if (choice.audience !== undefined) {
    // An audience's segment is written as a file by the service, with a phone column of its own naming.
    delete spec.phoneColumn;
    return compact({ ...spec, audience: choice.audience, where: choice.where?.trim() });
  }
  const delimiter = choice.delimiter;
  if (delimiter !== undefined && delimiter !== ',') spec.delimiter = delimiter === '\t' ? 'tab' : delimiter;
  return compact(spec);
}
