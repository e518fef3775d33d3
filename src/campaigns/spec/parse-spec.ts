import type { z } from 'zod';
import { AppError } from '../../errors/app-error.js';
import { campaignSpecSchema, type CampaignSpec } from './campaign-spec.js';
import { SPEC_FIELDS, type FieldNames, type SpecField } from './field-names.js';

/**
 * A campaign spec from the edge (specOfFlags of the CLI's flags or of the API's JSON), read
 * once by the schema. A wrong shape is OPTION_INVALID naming the field as the caller knows
 * it; the rules between fields are checkCampaignSpec's.
 */
export function parseCampaignSpec(input: unknown, names: FieldNames): CampaignSpec {
  const parsed = campaignSpecSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new AppError('OPTION_INVALID', describeIssue(parsed.error.issues[0], names));
}

function describeIssue(issue: z.core.$ZodIssue | undefined, names: FieldNames): string {
  if (issue === undefined) return 'the campaign spec is not valid';
  if (issue.code === 'unrecognized_keys') {
    const at = issue.path.length === 0 ? '' : `${jsonPath(issue.path)}.`;
    const unknown = issue.keys.map((key) => `${at}${key}`).join(', ');
    return `${unknown}: no such field in a campaign spec; check the spelling (fields: ${SPEC_FIELDS.join(', ')})`;
  }
  const where = issue.path.length === 0 ? 'the campaign spec' : fieldName(issue.path, names);
  // zod's text says what was expected and what came ("expected string, received number").
  return `${where}: ${issue.message.replace(/^Invalid input: /, '')}`;
}

/** The caller's name of the field at `path`, with any index or key below it in JSON form. */
function fieldName(path: readonly PropertyKey[], names: FieldNames): string {
  for (let depth = path.length; depth > 0; depth--) {
    const field = jsonPath(path.slice(0, depth));
    if (isSpecField(field)) return `${names[field]}${jsonPath(path.slice(depth), true)}`;
  }
  return jsonPath(path);
}

function isSpecField(path: string): path is SpecField {
  return (SPEC_FIELDS as readonly string[]).includes(path);
}

function jsonPath(path: readonly PropertyKey[], continued = false): string {
  return path.map((part, i) => (typeof part === 'number' ? `[${part}]` : `${i === 0 && !continued ? '' : '.'}${String(part)}`)).join('');
}
