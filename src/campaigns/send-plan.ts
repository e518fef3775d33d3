import { z } from 'zod';
import { AppError } from '../errors/app-error.js';
import type { TemplateRequirements } from '../templates/template-requirements.js';

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

/**
 * The plan for a template and the CSV header, or one error listing every problem: a variable
 * with no column, a column the file lacks, a template that cannot be sent. Nothing is
 * enqueued for a campaign whose plan fails.
 */
export function planSend(requirements: TemplateRequirements, header: readonly string[], options: ColumnOptions): SendPlan {
  const problems: string[] = [];
  const named = requirements.parameterFormat === 'NAMED';
  const columns = new Set(header);
  const overrides = options.paramColumns ?? {};
  const label = `${requirements.name} (${requirements.language})`;

  if (requirements.status !== 'APPROVED') problems.push(`its status is ${requirements.status}; only APPROVED templates can be sent`);
  if (named && options.params !== undefined) {
    problems.push('it uses named parameters, matched to columns by name: drop --params and use --param name=column where a column is named differently');
  }
  if (!named && options.params !== undefined && options.params.length !== requirements.body.variables.length) {
    problems.push(
      `its body takes ${requirements.body.variables.length} variable(s) (${braces(requirements.body.variables)}) but --params names ${options.params.length} column(s)`,
    );
  }

  // --param names a variable. Positional names (1, 2…) repeat across header, body and
  // buttons, so there it means a body variable; header and buttons have their own options.
  const overridable = new Set(named ? allVariables(requirements) : requirements.body.variables);
  for (const name of Object.keys(overrides)) {
    if (!overridable.has(name)) {
      problems.push(`--param ${name}=… names no ${named ? '' : 'body '}variable of this template (it has ${braces([...overridable])})`);
    }
  }

  const slots: Slot[] = [];
  const place = (component: Slot['component'], variable: string, fallback: string | undefined, buttonIndex?: number) => {
    const override = named || component === 'body' ? overrides[variable] : undefined;
    const column = override ?? fallback ?? (named ? variable : undefined);
    const where = component === 'button' ? `URL button ${buttonIndex ?? 0} variable {{${variable}}}` : `${component} variable {{${variable}}}`;
    if (column === undefined) {
      problems.push(`${where} has no column (${component === 'body' ? 'add it to --params' : `use --${component === 'header' ? 'header-text-column' : 'button-url-column'}`} or --param ${variable}=COLUMN)`);
      return;
    }
    if (!columns.has(column)) {
      problems.push(`${where} is to come from column "${column}", which the file does not have`);
      return;
    }
    slots.push({ component, variable, column, ...(buttonIndex === undefined ? {} : { buttonIndex }) });
  };

  if (requirements.header.kind === 'text') {
    requirements.header.variables.forEach((variable) => place('header', variable, options.headerTextColumn));
  }
  if (options.headerTextColumn !== undefined && !(requirements.header.kind === 'text' && requirements.header.variables.length > 0)) {
    problems.push('it has no text-header variable, so --header-text-column does not apply');
  }
  requirements.body.variables.forEach((variable, i) => place('body', variable, named ? undefined : options.params?.[i]));
  requirements.urlButtons.forEach((button, i) =>
    button.variables.forEach((variable) => place('button', variable, options.buttonUrlColumns?.[i], button.index)),
  );
  if ((options.buttonUrlColumns?.length ?? 0) > requirements.urlButtons.length) {
    problems.push(`it has ${requirements.urlButtons.length} URL button(s) with a variable, but --button-url-column names ${options.buttonUrlColumns?.length}`);
  }

  let headerMedia: SendPlan['headerMedia'];
  if (requirements.header.kind === 'media') {
    const format = requirements.header.format.toLowerCase() as 'image' | 'video' | 'document';
    const column = options.headerMediaColumn;
    if (column === undefined) problems.push(`its ${format} header needs a link: pass --header-image-column COLUMN (used for image, video and document headers)`);
    else if (!columns.has(column)) problems.push(`--header-image-column "${column}" is not a column of the file`);
    else headerMedia = { format, column };
  } else if (options.headerMediaColumn !== undefined) {
    problems.push('it has no media header, so --header-image-column does not apply');
  }
  if (requirements.header.kind === 'location') problems.push('its header is a LOCATION, which this version cannot fill');

  if (problems.length > 0) {
    throw new AppError(
      'TEMPLATE_MAPPING_INVALID',
      `Template ${label} cannot be sent from this file:\n  - ${problems.join('\n  - ')}\nColumns in the file: ${header.map((c) => `"${c}"`).join(', ')}. Nothing was enqueued.`,
    );
  }
  return {
    name: requirements.name,
    language: requirements.language,
    parameterFormat: requirements.parameterFormat,
    slots,
    ...(headerMedia === undefined ? {} : { headerMedia }),
    bodyText: requirements.body.text,
    ...(requirements.header.kind === 'text' ? { headerText: requirements.header.text } : {}),
  };
}

function allVariables(r: TemplateRequirements): string[] {
  const header = r.header.kind === 'text' ? r.header.variables : [];
  return [...header, ...r.body.variables, ...r.urlButtons.flatMap((b) => b.variables)];
}

function braces(names: readonly string[]): string {
  return names.map((n) => `{{${n}}}`).join(' ') || 'none';
}
