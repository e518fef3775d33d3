import type { z } from 'zod';
import { AppError } from '../../errors/app-error.js';
import { ProblemsError, type ProblemItem } from '../../errors/problems-error.js';
import { campaignSpecSchema, type CampaignSpec } from './campaign-spec.js';
import { SPEC_FIELDS, type FieldNames, type SpecField } from './field-names.js';

/**
 * A campaign spec from the edge (the CLI's flags mapped onto it, or the API's JSON body),
 * read once by the schema. A wrong shape is OPTION_INVALID naming the field as the caller
 * knows it; the rules between fields are checkCampaignSpec's.
 */
export function parseCampaignSpec(input: unknown, names: FieldNames): CampaignSpec {
  const parsed = campaignSpecSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new AppError('OPTION_INVALID', describeIssue(parsed.error.issues[0], names));
}

/**
 * The same reading for the HTTP API, which reports every problem at once: each zod issue is
 * an OPTION_INVALID item with `field` its JSON path (a misspelt field: one item per field).
 */
export function readCampaignSpec(input: unknown, names: FieldNames): CampaignSpec {
  const parsed = campaignSpecSchema.safeParse(input);
  if (parsed.success) return parsed.data;
  throw new ProblemsError(parsed.error.issues.flatMap((issue) => issueProblems(issue, names)));
}

/**
 * The spec without the fields the schema does not know, when those are all that is wrong
 * with it (undefined otherwise): a misspelt field is reported, and the rest still checked.
 */
export function readKnownFields(input: unknown): CampaignSpec | undefined {
  const first = campaignSpecSchema.safeParse(input);
  if (first.success) return first.data;
  if (first.error.issues.some((issue) => issue.code !== 'unrecognized_keys')) return undefined;
  const known = structuredClone(input) as Record<string, unknown>;
  for (const issue of first.error.issues) {
    if (issue.code !== 'unrecognized_keys') continue;
    let at: unknown = known;
    for (const part of issue.path) at = (at as Record<PropertyKey, unknown>)[part];
    for (const key of issue.keys) delete (at as Record<string, unknown>)[key];
  }
  const second = campaignSpecSchema.safeParse(known);
  return second.success ? second.data : undefined;
}

function issueProblems(issue: z.core.$ZodIssue, names: FieldNames): ProblemItem[] {
  if (issue.code !== 'unrecognized_keys') {
    const field = issue.path.length === 0 ? undefined : jsonPath(issue.path);
    return [{ code: 'OPTION_INVALID', detail: describeIssue(issue, names), ...(field === undefined ? {} : { field }) }];
  }
  return issue.keys.map((key) => ({
    code: 'OPTION_INVALID',
    detail: describeIssue({ ...issue, keys: [key] }, names),
    field: jsonPath([...issue.path, key]),
  }));
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
