import type { CampaignFlags } from './campaign-flags.js';
import type { CampaignSpecInput } from './campaign-spec.js';
import { FLAG_FIELD_NAMES, SPEC_FIELDS } from './field-names.js';

/**
 * The spec of a campaign's flags (the CLI's options or the API's JSON): each flag onto the
 * field FLAG_FIELD_NAMES pairs it with, so no flag can be left out of the mapping. Flags not
 * given are left out, and so is an empty `param` (commander's default for `--param`): a
 * campaign without them, as a JSON caller leaves them out.
 */
export function specOfFlags(flags: CampaignFlags): CampaignSpecInput {
  const spec: Record<string, unknown> = {};
  for (const field of SPEC_FIELDS) {
    const value: unknown = flags[FLAG_FIELD_NAMES[field] as keyof CampaignFlags];
    if (value === undefined || isEmptyRecord(value)) continue;
    const [group, key] = field.split('.') as [string, string | undefined];
    if (key === undefined) spec[group] = value;
    else spec[group] = { ...(spec[group] as Record<string, unknown> | undefined), [key]: value };
  }
  // Its shape is the schema's to read (parseCampaignSpec), once, as any spec's.
  return spec;
}

function isEmptyRecord(value: unknown): boolean {
  return typeof value === 'object' && value !== null && !Array.isArray(value) && Object.keys(value).length === 0;
}
