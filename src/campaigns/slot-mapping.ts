import type { ErrorCode } from '../errors/error-codes.js';
import type { TemplateRequirements } from '../templates/template-requirements.js';
import type { TemplateSlot } from '../templates/slots/template-slot.js';
import type { FieldNames } from './spec/field-names.js';

export interface ColumnOptions {
  /** Positional body variables {{1}}..{{n}}, in order. */
  params?: readonly string[] | undefined;
  /** `--param SLOT=COLUMN`: any slot by its name (`button.1.coupon_code`), or a variable by its bare name (`first_name`, `1`). */
  paramColumns?: Readonly<Record<string, string>> | undefined;
  headerTextColumn?: string | undefined;
  headerMediaColumn?: string | undefined;
  /** A media header from local files (paths relative to the CSV's folder). */
  headerFileColumn?: string | undefined;
  /** One column per URL button that has a variable, in button order. */
  buttonUrlColumns?: readonly string[] | undefined;
}

/** How the column options are named where they came from (flags, or JSON fields). */
export type ColumnNames = Pick<
  FieldNames,
  | 'csv.params'
  | 'csv.paramColumns'
  | 'csv.headerTextColumn'
  | 'csv.headerMediaColumn'
  | 'csv.headerFileColumn'
  | 'csv.buttonUrlColumns'
  | 'endpoint'
>;

export interface SlotProblem {
  code: ErrorCode;
  text: string;
  /** The column the problem is about, when it is one the file lacks. */
  column?: string | undefined;
}

export interface PlacedSlot {
  slot: TemplateSlot;
  column: string;
}

/**
 * The column of every slot the mapping fills, in the template's send order, and what stops
 * a slot being filled. A slot is filled by, first to last: `--param SLOT=COLUMN`; a bare
 * variable name given to `--param`; the shorthand flag for its kind (`--params`,
 * `--header-text-column`, `--header-image-column`, `--button-url-column`); a column named as the
 * slot; for a named template's variable, a column named as the variable. A required slot left
 * unfilled is TEMPLATE_SLOT_UNFILLED; an optional one is left out of the send.
 */
export function placeSlots(
  requirements: TemplateRequirements,
  header: readonly string[],
  options: ColumnOptions,
  names: ColumnNames,
): { slots: PlacedSlot[]; problems: SlotProblem[] } {
  const { slots } = requirements;
  const columns = new Set(header);
  const chosen = new Map<string, string>();
  const problems: SlotProblem[] = [...optionProblems(requirements, options, names)];
  const shorthands = shorthandColumns(requirements, options);
  const bare = bareNameColumns(requirements, options);
  for (const slot of slots) {
    if (slot.sameAs !== undefined) continue;
    const column =
      options.paramColumns?.[slot.name] ??
      bare.get(slot.name) ??
      shorthands.get(slot.name) ??
      (columns.has(slot.name) ? slot.name : undefined) ??
      namedDefault(requirements, slot);
    if (column !== undefined) chosen.set(slot.name, column);
    else if (slot.required) problems.push(unfilled(slot, requirements, names));
  }
  const placed: PlacedSlot[] = [];
  for (const slot of slots) {
    const column = chosen.get(slot.sameAs ?? slot.name);
    if (column === undefined) continue;
    if (!columns.has(column)) {
      if (slot.sameAs !== undefined) continue; // its source slot's problem says it
      problems.push({
        code: 'TEMPLATE_MAPPING_INVALID',
        text: `${slot.name} (${slot.about}) is to come from column "${column}", which the file does not have`,
        column,
      });
      continue;
    }
    placed.push({ slot, column });
  }
  return { slots: placed, problems };
}

function unfilled(slot: TemplateSlot, requirements: TemplateRequirements, names: ColumnNames): SlotProblem {
  const shorthand = shorthandOf(slot, requirements, names);
  const how = `${shorthand === undefined ? '' : `${shorthand}, or `}map it with ${names['csv.paramColumns']} ${slot.name}=COLUMN`;
  return { code: 'TEMPLATE_SLOT_UNFILLED', text: `${slot.name} (${slot.about}) is required and no column fills it: ${how}` };
}

/** The shorthand flag that fills a slot of the message's own, said as the fix: `add it to --params`. */
function shorthandOf(slot: TemplateSlot, requirements: TemplateRequirements, names: ColumnNames): string | undefined {
  if (slot.card !== undefined) return undefined;
  if (slot.component === 'body' && requirements.parameterFormat === 'POSITIONAL') return `add its column to ${names['csv.params']}`;
  if (slot.component === 'header' && slot.kind === 'text') return `give ${names['csv.headerTextColumn']}`;
  if (slot.kind === 'media') return `give ${names['csv.headerMediaColumn']}`;
  if (slot.kind === 'url') return `give ${names['csv.buttonUrlColumns']}`;
  return undefined;
}

/**
 * A named template's own variable comes from the column of its name, present or not: when the
 * file lacks it, the problem names that column (TEMPLATE_MAPPING_INVALID), which is the fix.
 */
function namedDefault(requirements: TemplateRequirements, slot: TemplateSlot): string | undefined {
  const own = requirements.parameterFormat === 'NAMED' && (slot.kind === 'text' || slot.kind === 'url') && slot.card === undefined;
  return own ? slot.variable : undefined;
}

/** The columns the shorthand flags give, by slot name. */
function shorthandColumns(requirements: TemplateRequirements, options: ColumnOptions): Map<string, string> {
  const byName = new Map<string, string>();
  const own = requirements.slots.filter((s) => s.card === undefined && s.sameAs === undefined);
  const set = (name: string | undefined, column: string | undefined) => {
    if (name !== undefined && column !== undefined) byName.set(name, column);
  };
  if (requirements.parameterFormat === 'POSITIONAL') {
    requirements.body.variables.forEach((variable, i) => set(`body.${variable}`, options.params?.[i]));
  }
  for (const slot of own) {
    if (slot.component === 'header' && slot.kind === 'text') set(slot.name, options.headerTextColumn);
    if (slot.kind === 'media') set(slot.name, options.headerMediaColumn ?? options.headerFileColumn);
  }
  own.filter((s) => s.kind === 'url').forEach((slot, i) => set(slot.name, options.buttonUrlColumns?.[i]));
  return byName;
}

/**
 * `--param name=COLUMN` with a bare variable name: for a named template, the message's own
 * header, body or URL-button variable of that name; for a positional one, the body's (its
 * numbers repeat across components, and header and buttons have their own flags).
 */
function bareNameColumns(requirements: TemplateRequirements, options: ColumnOptions): Map<string, string> {
  const byName = new Map<string, string>();
  for (const [key, column] of Object.entries(options.paramColumns ?? {})) {
    for (const slot of bareNameSlots(requirements, key)) byName.set(slot.name, column);
  }
  return byName;
}

/** Every slot a bare name fills: a named template's variable may appear in its header, body and a URL button at once. */
function bareNameSlots(requirements: TemplateRequirements, key: string): TemplateSlot[] {
  if (key.includes('.')) return [];
  const named = requirements.parameterFormat === 'NAMED';
  return requirements.slots.filter(
    (s) => s.card === undefined && s.sameAs === undefined && (named || s.component === 'body') && s.variable === key,
  );
}

/** What is wrong with the options themselves, before any column is placed. */
function optionProblems(requirements: TemplateRequirements, options: ColumnOptions, names: ColumnNames): SlotProblem[] {
  const problems: string[] = [];
  const slots = requirements.slots;
  const named = requirements.parameterFormat === 'NAMED';
  const { 'csv.params': params, 'csv.paramColumns': param } = names;
  if (named && options.params !== undefined) {
    problems.push(`it uses named parameters, matched to columns by name: drop ${params} and use ${param} SLOT=COLUMN where needed`);
  }
  if (!named && options.params !== undefined && options.params.length !== requirements.body.variables.length) {
    problems.push(
      `its body takes ${requirements.body.variables.length} variable(s) (${braces(requirements.body.variables)}) ` +
        `but ${params} names ${options.params.length} column(s)`,
    );
  }
  for (const key of Object.keys(options.paramColumns ?? {})) {
    const slot = slots.find((s) => s.name === key);
    if (slot?.sameAs !== undefined) problems.push(`${param} ${key}=… : ${key} is filled from ${slot.sameAs}; map ${slot.sameAs} instead`);
    else if (slot === undefined && bareNameSlots(requirements, key).length === 0) {
      problems.push(`${param} ${key}=… names no slot of this template (its slots: ${slots.map((s) => s.name).join(', ') || 'none'})`);
    }
  }
  const own = slots.filter((s) => s.card === undefined);
  if (options.headerTextColumn !== undefined && !own.some((s) => s.component === 'header' && s.kind === 'text')) {
    problems.push(`it has no text-header variable, so ${names['csv.headerTextColumn']} does not apply`);
  }
  for (const [given, name] of [
    [options.headerMediaColumn, names['csv.headerMediaColumn']],
    [options.headerFileColumn, names['csv.headerFileColumn']],
  ] as const) {
    if (given !== undefined && !own.some((s) => s.kind === 'media')) problems.push(`it has no media header, so ${name} does not apply`);
  }
  const urls = own.filter((s) => s.kind === 'url').length;
  if ((options.buttonUrlColumns?.length ?? 0) > urls) {
    problems.push(
      `it has ${urls} URL button(s) with a variable, but ${names['csv.buttonUrlColumns']} names ${options.buttonUrlColumns?.length}`,
    );
  }
  return problems.map((text) => ({ code: 'TEMPLATE_MAPPING_INVALID', text }));
}

function braces(names: readonly string[]): string {
  return names.map((n) => `{{${n}}}`).join(' ') || 'none';
}
