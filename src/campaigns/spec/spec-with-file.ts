import { openCsv, parseDelimiterOption } from '../../csv/csv-records.js';
import { isAppError } from '../../errors/app-error.js';
import { ProblemsError, type ProblemItem } from '../../errors/problems-error.js';
import type { TemplateRequirements } from '../../templates/template-requirements.js';
import { planSend } from '../send-plan.js';
import { parseTextBody } from '../text-plan.js';
import type { CampaignSpec } from './campaign-spec.js';
import { checkCampaignSpec, type CheckedSpec, type SpecCheckContext } from './check-spec.js';
import type { FieldNames } from './field-names.js';
import { checkEndpointCategory } from './send-endpoint.js';
import { specProblemItems, withFields } from './spec-problems.js';

/** The approved template of a name and language, or its refusal (TEMPLATE_MAPPING_INVALID). */
export type TemplateFind = (name: string, language: string) => Promise<TemplateRequirements>;

/**
 * Every problem of a spec sent with its file, at once (the HTTP API's 422): its rules, each
 * column it names that the file's header lacks and, when any of those is wrong, what the
 * template (`find`) says of the file. Returns the spec checked, once: createCampaign then does
 * the rest (the template of a spec with no other problem, found once, there).
 */
export async function checkSpecWithFile(
  spec: CampaignSpec,
  file: string,
  names: FieldNames,
  context: SpecCheckContext,
  earlier: readonly ProblemItem[] = [],
  find?: TemplateFind,
): Promise<CheckedSpec> {
  // `earlier`: what the caller's own reading found (the API's flags), reported with the rest.
  const problems: ProblemItem[] = [...earlier];
  let checked: CheckedSpec | undefined;
  try {
    checked = checkCampaignSpec(spec, names, context);
  } catch (error) {
    problems.push(...itemsOf(error, names));
  }
  const columns = await missingColumns(spec, file, names);
  problems.push(...columns.problems);
  if (problems.length > 0 && find !== undefined && columns.header !== undefined) {
    const reported = new Set(problems.map((p) => p.column).filter((c) => c !== undefined));
    const fromTemplate = await templateProblems(spec, columns.header, names, find);
    problems.push(...fromTemplate.filter((p) => p.column === undefined || !reported.has(p.column)));
  }
  if (problems.length > 0 || checked === undefined) throw new ProblemsError(problems);
  return checked;
}

function itemsOf(error: unknown, names: FieldNames): ProblemItem[] {
  if (!isAppError(error)) throw error;
  return specProblemItems(error, names);
}

/** The columns the spec names, each with the field that names it. */
function namedColumns(spec: CampaignSpec, names: FieldNames): { column: string; field: string }[] {
  const { csv } = spec;
  const named = [{ column: csv.phoneColumn, field: names['csv.phoneColumn'] }];
  csv.params?.forEach((column) => named.push({ column, field: names['csv.params'] }));
  for (const column of Object.values(csv.paramColumns ?? {})) named.push({ column, field: names['csv.paramColumns'] });
  if (csv.headerTextColumn !== undefined) named.push({ column: csv.headerTextColumn, field: names['csv.headerTextColumn'] });
  if (csv.headerMediaColumn !== undefined) named.push({ column: csv.headerMediaColumn, field: names['csv.headerMediaColumn'] });
  csv.buttonUrlColumns?.forEach((column) => named.push({ column, field: names['csv.buttonUrlColumns'] }));
  if (csv.timezoneColumn !== undefined) named.push({ column: csv.timezoneColumn, field: names['csv.timezoneColumn'] });
  if (csv.languageColumn !== undefined) named.push({ column: csv.languageColumn, field: names['csv.languageColumn'] });
  if (csv.headerFileColumn !== undefined) named.push({ column: csv.headerFileColumn, field: names['csv.headerFileColumn'] });
  if (spec.text?.body !== undefined) {
    // A body that does not parse is a problem of its own (checkMessage's); its columns are then unknown.
    const columns = safely(() => parseTextBody(spec.text!.body!, names['text.body'])) ?? [];
    for (const column of columns) named.push({ column, field: names['text.body'] });
  }
  return named;
}

/**
 * What the spec's template says of the file's header: the template missing, a variable without
 * a column, the endpoint refusing its category. Each names its field or column.
 */
async function templateProblems(
  spec: CampaignSpec,
  header: readonly string[],
  names: FieldNames,
  find: TemplateFind,
): Promise<ProblemItem[]> {
  const { name, language } = spec.template ?? {};
  if (name === undefined || language === undefined || spec.text?.body !== undefined) return [];
  let requirements: TemplateRequirements;
  try {
    requirements = await find(name, language);
  } catch (error) {
    return withFields(itemsOf(error, names), names, names['template.name']);
  }
  const problems: ProblemItem[] = [];
  try {
    const endpoint = spec.endpoint?.toLowerCase() === 'marketing-messages' ? 'marketing-messages' : 'messages';
    planSend(requirements, header, spec.csv, names, { endpoint });
  } catch (error) {
    problems.push(...withFields(itemsOf(error, names), names, names['template.name']));
  }
  try {
    if (spec.endpoint?.toLowerCase() === 'marketing-messages') checkEndpointCategory('marketing-messages', requirements, names);
  } catch (error) {
    problems.push(...withFields(itemsOf(error, names), names, names.endpoint));
  }
  return problems;
}

/** Each column named by the spec that the header lacks, once; a header that cannot be read is the one problem. */
async function missingColumns(
  spec: CampaignSpec,
  file: string,
  names: FieldNames,
): Promise<{ problems: ProblemItem[]; header: readonly string[] | undefined }> {
  // A delimiter that does not parse is the spec's own problem: the header is then read with the one detected.
  const given = spec.csv.delimiter;
  const delimiter = given === undefined ? undefined : safely(() => parseDelimiterOption(given));
  let header: readonly string[];
  try {
    const source = await openCsv(file, { delimiter });
    header = source.header;
    source.close();
  } catch (error) {
    return { problems: itemsOf(error, names), header: undefined };
  }
  const found = `Columns found: ${header.map((c) => `"${c}"`).join(', ')}`;
  const seen = new Set<string>();
  const problems: ProblemItem[] = [];
  for (const { column, field } of namedColumns(spec, names)) {
    if (header.includes(column) || seen.has(column)) continue;
    seen.add(column);
    problems.push({ code: 'CSV_HEADER_INVALID', column, detail: `${file}: the header has no column "${column}" (${field}). ${found}` });
  }
  return { problems, header };
}

/** The check's value, or undefined when it refuses (an AppError: reported by the spec's own checks). */
function safely<T>(run: () => T): T | undefined {
  try {
    return run();
  } catch (error) {
    if (isAppError(error)) return undefined;
    throw error;
  }
}
