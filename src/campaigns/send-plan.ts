import { z } from 'zod';
import { ProblemsError } from '../errors/problems-error.js';
import type { TemplateRequirements } from '../templates/template-requirements.js';
import type { FieldNames } from './spec/field-names.js';

/**
 * Which CSV column fills which template variable, decided once per campaign from the
 * approved template. The producer checks rows against it, the worker builds each request
 * from it, and a job carries only the values, in slot order.
 */
export const slotSchema = z.object({
  component: z.enum(['header', 'body', 'button']),
  /** Placeholder name: `1`, `2`… (positional) or `first_name` (named). */
  variable: z.string(),
  /** Position of the URL button in the template (button slots only). */
  buttonIndex: z.number().int().min(0).optional(),
  column: z.string(),
});
export type Slot = z.infer<typeof slotSchema>;

export const sendPlanSchema = z.object({
  name: z.string(),
  language: z.string(),
  parameterFormat: z.enum(['POSITIONAL', 'NAMED']),
  slots: z.array(slotSchema),
  headerMedia: z.object({ format: z.enum(['image', 'video', 'document']), column: z.string() }).optional(),
  /** Template texts, to check the rendered length of each row before it is queued. */
  bodyText: z.string(),
  headerText: z.string().optional(),
});
export type SendPlan = z.infer<typeof sendPlanSchema>;

export interface ColumnOptions {
  /** Positional body variables {{1}}..{{n}}, in order. */
  params?: readonly string[] | undefined;
  /** `--param name=column`: a variable (body, header or button) filled from a column. */
  paramColumns?: Readonly<Record<string, string>> | undefined;
  headerTextColumn?: string | undefined;
  headerMediaColumn?: string | undefined;
  /** One column per URL button that has a variable, in button order. */
  buttonUrlColumns?: readonly string[] | undefined;
}

/** How the column options are named where they came from (flags by default). */
export type ColumnNames = Pick<
  FieldNames,
  'csv.params' | 'csv.paramColumns' | 'csv.headerTextColumn' | 'csv.headerMediaColumn' | 'csv.buttonUrlColumns'
>;

/**
 * The plan for a template and the CSV header, or one error listing every problem: a variable
 * with no column, a column the file lacks, a template that cannot be sent. Nothing is
 * enqueued for a campaign whose plan fails.
 */
export function planSend(
  requirements: TemplateRequirements,
  header: readonly string[],
  options: ColumnOptions,
  names: ColumnNames,
): SendPlan {
  const slots = placeSlots(requirements, header, options, names);
  const media = headerMediaOf(requirements, header, options, names);
  const problems = [...optionProblems(requirements, options, names), ...slots.problems, ...media.problems];
  for (const what of requirements.unfillable ?? []) problems.push(`it has ${what}, which this version cannot fill`);
  if (problems.length > 0) {
    const template = `Template ${requirements.name} (${requirements.language})`;
    const missing = new Map([...slots.missing, ...media.missing]);
    // One message for the operator; an item per problem, a missing column named, for the API.
    throw new ProblemsError(
      problems.map((problem) => ({ code: 'TEMPLATE_MAPPING_INVALID', detail: `${template}: ${problem}`, column: missing.get(problem) })),
      {
        code: 'TEMPLATE_MAPPING_INVALID',
        message:
          `${template} cannot be sent from this file:\n  - ${problems.join('\n  - ')}\n` +
          `Columns in the file: ${header.map((c) => `"${c}"`).join(', ')}. Nothing was enqueued.`,
      },
    );
  }
  return {
    name: requirements.name,
    language: requirements.language,
    parameterFormat: requirements.parameterFormat,
    slots: slots.slots,
    ...(media.headerMedia === undefined ? {} : { headerMedia: media.headerMedia }),
    bodyText: requirements.body.text,
    ...(requirements.header.kind === 'text' ? { headerText: requirements.header.text } : {}),
  };
}

/** What is wrong with the template itself, `--params` and `--param`, before any column is placed. */
function optionProblems(requirements: TemplateRequirements, options: ColumnOptions, names: ColumnNames): string[] {
  const { 'csv.params': params, 'csv.paramColumns': param } = names;
  const problems: string[] = [];
  const named = requirements.parameterFormat === 'NAMED';
  if (requirements.status !== 'APPROVED') problems.push(`its status is ${requirements.status}; only APPROVED templates can be sent`);
  if (named && options.params !== undefined) {
    problems.push(
      `it uses named parameters, matched to columns by name: drop ${params} and use ${param} ` +
        `name=column where a column is named differently`,
    );
  }
  if (!named && options.params !== undefined && options.params.length !== requirements.body.variables.length) {
    problems.push(
      `its body takes ${requirements.body.variables.length} variable(s) (${braces(requirements.body.variables)}) ` +
        `but ${params} names ${options.params.length} column(s)`,
    );
  }
  // --param names a variable. Positional names (1, 2…) repeat across header, body and
  // buttons, so there it means a body variable; header and buttons have their own options.
  const overridable = new Set(named ? allVariables(requirements) : requirements.body.variables);
  for (const name of Object.keys(options.paramColumns ?? {})) {
    if (!overridable.has(name)) {
      problems.push(`${param} ${name}=… names no ${named ? '' : 'body '}variable of this template (it has ${braces([...overridable])})`);
    }
  }
  return problems;
}

/** The column of every header, body and URL-button variable, in that order, and what stops one being placed. */
function placeSlots(
  requirements: TemplateRequirements,
  header: readonly string[],
  options: ColumnOptions,
  names: ColumnNames,
): { slots: Slot[]; problems: string[]; missing: Map<string, string> } {
  const {
    'csv.params': params,
    'csv.paramColumns': param,
    'csv.headerTextColumn': headerTextColumn,
    'csv.buttonUrlColumns': buttonUrlColumn,
  } = names;
  const named = requirements.parameterFormat === 'NAMED';
  const columns = new Set(header);
  const overrides = options.paramColumns ?? {};
  const slots: Slot[] = [];
  const problems: string[] = [];
  const missing = new Map<string, string>();
  const place = (component: Slot['component'], variable: string, fallback: string | undefined, buttonIndex?: number) => {
    const override = named || component === 'body' ? overrides[variable] : undefined;
    const column = override ?? fallback ?? (named ? variable : undefined);
    const where =
      component === 'button' ? `URL button ${buttonIndex ?? 0} variable {{${variable}}}` : `${component} variable {{${variable}}}`;
    if (column === undefined) {
      const fix = component === 'body' ? `add it to ${params}` : `use ${component === 'header' ? headerTextColumn : buttonUrlColumn}`;
      problems.push(`${where} has no column (${fix} or ${param} ${variable}=COLUMN)`);
      return;
    }
    if (!columns.has(column)) {
      const problem = `${where} is to come from column "${column}", which the file does not have`;
      problems.push(problem);
      missing.set(problem, column);
      return;
    }
    slots.push({ component, variable, column, ...(buttonIndex === undefined ? {} : { buttonIndex }) });
  };

  if (requirements.header.kind === 'text') {
    requirements.header.variables.forEach((variable) => place('header', variable, options.headerTextColumn));
  }
  if (options.headerTextColumn !== undefined && !(requirements.header.kind === 'text' && requirements.header.variables.length > 0)) {
    problems.push(`it has no text-header variable, so ${headerTextColumn} does not apply`);
  }
  requirements.body.variables.forEach((variable, i) => place('body', variable, named ? undefined : options.params?.[i]));
  requirements.urlButtons.forEach((button, i) =>
    button.variables.forEach((variable) => place('button', variable, options.buttonUrlColumns?.[i], button.index)),
  );
  if ((options.buttonUrlColumns?.length ?? 0) > requirements.urlButtons.length) {
    problems.push(
      `it has ${requirements.urlButtons.length} URL button(s) with a variable, but ${buttonUrlColumn} ` +
        `names ${options.buttonUrlColumns?.length}`,
    );
  }
  return { slots, problems, missing };
}

/** The column of a media header's link, or why there is none. */
function headerMediaOf(
  requirements: TemplateRequirements,
  header: readonly string[],
  options: ColumnOptions,
  names: ColumnNames,
): { headerMedia: SendPlan['headerMedia']; problems: string[]; missing: Map<string, string> } {
  const name = names['csv.headerMediaColumn'];
  const column = options.headerMediaColumn;
  if (requirements.header.kind !== 'media') {
    return {
      headerMedia: undefined,
      problems: column === undefined ? [] : [`it has no media header, so ${name} does not apply`],
      missing: new Map(),
    };
  }
  const format = requirements.header.format.toLowerCase() as 'image' | 'video' | 'document';
  if (column === undefined)
    return {
      headerMedia: undefined,
      problems: [`its ${format} header needs a link: pass ${name} COLUMN (used for image, video and document headers)`],
      missing: new Map(),
    };
  if (!header.includes(column)) {
    const problem = `${name} "${column}" is not a column of the file`;
    return { headerMedia: undefined, problems: [problem], missing: new Map([[problem, column]]) };
  }
  return { headerMedia: { format, column }, problems: [], missing: new Map() };
}

function allVariables(r: TemplateRequirements): string[] {
  const header = r.header.kind === 'text' ? r.header.variables : [];
  return [...header, ...r.body.variables, ...r.urlButtons.flatMap((b) => b.variables)];
}

function braces(names: readonly string[]): string {
  return names.map((n) => `{{${n}}}`).join(' ') || 'none';
}
