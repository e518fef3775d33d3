import { renderPlaceholders, type TemplateRequirements } from '../templates/template-requirements.js';
import { GraphRejection } from './graph-error.js';
import { INVALID, MISSING_VALUE, rejectUnknownKeys, requireObject, requireString, optionalString } from './json-checks.js';
import { readParameter, type ParameterKind, type ParameterValue } from './parameter-validation.js';
import type { MediaLookup } from './media-store.js';
import { UNSIMULATED_COMPONENTS, unfilledSlot } from './template-kinds.js';
import type { TemplateEntry } from './templates-store.js';

/**
 * The `template` object of a send (reference §1.4, checklist §7 items 2–5): which approved
 * template it names and whether its components supply exactly the variables that template
 * has. Throws GraphRejection with Meta's code for the first problem found; returns the
 * catalogue entry (its category decides what the sandbox reports later, e.g. opt-outs).
 */
export interface TemplateLookup {
  find(name: string, language: string): TemplateEntry | undefined;
}

export const MAX_RENDERED_BODY = 1024;

const TEMPLATE_KEYS = new Set(['name', 'language', 'components']);
const LANGUAGE_KEYS = new Set(['code', 'policy']);
const HEADER_BODY_KEYS = new Set(['type', 'parameters']);
const BUTTON_KEYS = new Set(['type', 'sub_type', 'index', 'parameters']);
const BODY_KINDS: readonly ParameterKind[] = ['text', 'currency', 'date_time'];
/** Button sub_types Meta defines; only url and quick_reply are simulated (see below). */
const OTHER_SUB_TYPES = new Set(['copy_code', 'catalog', 'mpm', 'flow', 'voice_call', 'order_details', 'spm']);

interface SentButton {
  index: number;
  subType: string;
  parameters: unknown[];
}

interface SentComponents {
  header?: unknown[];
  body?: unknown[];
  buttons: SentButton[];
}

/** `media`: the uploads a header's media `id` must name (media-store.ts); without it, any ID is taken. */
export function checkTemplate(value: unknown, templates: TemplateLookup, media?: MediaLookup): TemplateEntry {
  const template = requireObject(value, 'template');
  rejectUnknownKeys(template, TEMPLATE_KEYS, 'template');
  const name = requireString(template, 'name', 'template');
  const language = requireObject(template['language'], 'template.language');
  rejectUnknownKeys(language, LANGUAGE_KEYS, 'template.language');
  const code = requireString(language, 'code', 'template.language');
  const policy = optionalString(language, 'policy', 'template.language');
  if (policy !== undefined && policy !== 'deterministic') {
    throw new GraphRejection(INVALID, 'Parameter template.language.policy must be "deterministic"');
  }
  const components = template['components'];
  if (components !== undefined && !Array.isArray(components)) {
    throw new GraphRejection(INVALID, 'Parameter template.components must be an array');
  }

  const entry = templates.find(name, code);
  if (entry === undefined) {
    throw new GraphRejection(132001, `template name (${name}) does not exist in ${code}`);
  }
  const status = entry.template.status;
  if (status === 'PAUSED') {
    throw new GraphRejection(132015, `template name (${name}) in ${code} is paused because of low quality`);
  }
  if (status === 'DISABLED') {
    throw new GraphRejection(132016, `template name (${name}) in ${code} has been disabled`);
  }
  if (status !== 'APPROVED') {
    throw new GraphRejection(132001, `template name (${name}) in ${code} is not approved (status ${status})`);
  }

  checkComponents(collect((components ?? []) as unknown[]), entry, media);
  return entry;
}

/** Shape of each sent component; what it must contain is checked against the template after. */
function collect(components: unknown[]): SentComponents {
  const sent: SentComponents = { buttons: [] };
  components.forEach((raw, position) => {
    const where = `template.components[${position}]`;
    const component = requireObject(raw, where);
    const type = requireString(component, 'type', where);
    if (UNSIMULATED_COMPONENTS.has(type)) {
      throw new GraphRejection(INVALID, `${where}: a ${type} component is not simulated by the sandbox`);
    }
    if (type !== 'header' && type !== 'body' && type !== 'button') {
      throw new GraphRejection(INVALID, `Parameter ${where}.type has an invalid value: ${type}`);
    }
    rejectUnknownKeys(component, type === 'button' ? BUTTON_KEYS : HEADER_BODY_KEYS, where);
    const parameters = component['parameters'];
    if (parameters === undefined) throw GraphRejection.missing(`${where}.parameters`);
    if (!Array.isArray(parameters)) throw new GraphRejection(INVALID, `Parameter ${where}.parameters must be an array`);

    if (type !== 'button') {
      if (sent[type] !== undefined) throw new GraphRejection(INVALID, `Duplicate ${type} component at ${where}`);
      sent[type] = parameters;
      return;
    }
    const subType = requireString(component, 'sub_type', where);
    const index = buttonIndex(component['index'], where);
    if (sent.buttons.some((b) => b.index === index)) {
      throw new GraphRejection(INVALID, `Duplicate button component for index ${index} at ${where}`);
    }
    sent.buttons.push({ index, subType, parameters });
  });
  return sent;
}

/**
 * A button's `index`, 0 to 9: Meta's send examples write it as an integer (`"index": 0`,
 * templates/authentication-templates and templates/components), its OpenAPI as a string
 * (`ButtonComponent.index`, pattern `^[0-9]$`); Meta takes both, so the sandbox does.
 */
function buttonIndex(value: unknown, where: string): number {
  if (value === undefined) throw GraphRejection.missing(`${where}.index`);
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 9) return value;
  if (typeof value === 'string' && /^[0-9]$/.test(value)) return Number(value);
  throw new GraphRejection(INVALID, `Parameter ${where}.index must be 0 to 9, as an integer or a string ("0")`);
}

function checkComponents(sent: SentComponents, entry: TemplateEntry, media: MediaLookup | undefined): void {
  const req = entry.requirements;
  const named = req.parameterFormat === 'NAMED';
  checkHeader(sent.header, req, named, media);

  const bodyValues = (sent.body ?? []).map((p, i) => readParameter(p, `body.parameters[${i}]`, { allowed: BODY_KINDS, named }));
  const values = matchVariables('body', req.body.variables, bodyValues, named);
  const rendered = renderPlaceholders(req.body.text, values);
  if (rendered.length > MAX_RENDERED_BODY) {
    throw new GraphRejection(
      132005,
      `body: text after parameter substitution is ${rendered.length} characters; the limit is ${MAX_RENDERED_BODY}`,
    );
  }

  for (const button of sent.buttons) checkButton(button, entry, named);
  // An omitted URL-button component is a missing value, worded as Meta words it (reference
  // §2.3, 131008): the template's URL has a variable the send never filled.
  for (const url of req.urlButtons) {
    if (!sent.buttons.some((b) => b.index === url.index)) {
      throw new GraphRejection(MISSING_VALUE, `buttons: Button at index ${url.index} of type Url requires a parameter`);
    }
  }
  // A carousel, limited-time offer or copy-code button left out (template-kinds.ts): malformed, as at Meta.
  const unfilled = unfilledSlot(
    entry.unsimulated,
    sent.buttons.map((b) => b.index),
  );
  if (unfilled !== undefined) throw new GraphRejection(MISSING_VALUE, unfilled);
}

/** Meta's names for button types in its 132018 wording ("must be of type QuickReply"). */
const META_BUTTON_TYPE: Readonly<Record<string, string>> = { URL: 'Url', QUICK_REPLY: 'QuickReply' };

function checkHeader(sent: unknown[] | undefined, req: TemplateRequirements, named: boolean, media: MediaLookup | undefined): void {
  const header = req.header;
  if (header.kind === 'media' || header.kind === 'location') {
    const kind = header.kind === 'media' ? (header.format.toLowerCase() as ParameterKind) : 'location';
    if (sent === undefined || sent.length === 0) {
      throw new GraphRejection(132012, `header: template header format is ${kind.toUpperCase()}; expected 1 ${kind} parameter, got none`);
    }
    sent.forEach((p, i) =>
      readParameter(p, `header.parameters[${i}]`, { allowed: [kind], named, ...(media === undefined ? {} : { media }) }),
    );
    if (sent.length !== 1) {
      throw new GraphRejection(132000, `header: expected 1 parameters, got ${sent.length}`);
    }
    return;
  }
  const variables = header.kind === 'text' ? header.variables : [];
  if (sent === undefined) {
    if (variables.length > 0) {
      throw new GraphRejection(132000, `header: expected ${variables.length} parameters, got 0`);
    }
    return;
  }
  if (variables.length === 0) {
    throw new GraphRejection(132000, `header: template has no header parameters, got ${sent.length}`);
  }
  const values = sent.map((p, i) => readParameter(p, `header.parameters[${i}]`, { allowed: ['text'], named }));
  matchVariables('header', variables, values, named);
}

/**
 * Only the two button kinds a template campaign fills in per recipient are simulated: URL
 * suffixes and quick-reply payloads. Other sub_types (copy_code, flow, catalog …) exist at
 * Meta but the sandbox cannot judge them, so it refuses them rather than pretend.
 */
function checkButton(button: SentButton, entry: TemplateEntry, named: boolean): void {
  const where = `button ${button.index}`;
  if (button.subType !== 'url' && button.subType !== 'quick_reply') {
    const why = OTHER_SUB_TYPES.has(button.subType) ? 'is not simulated by the sandbox' : 'is not a valid sub_type';
    throw new GraphRejection(INVALID, `${where}: sub_type ${button.subType} ${why}`);
  }
  const expectedType = button.subType === 'url' ? 'URL' : 'QUICK_REPLY';
  const actualType = entry.buttonTypes[button.index];
  if (actualType === undefined) {
    throw new GraphRejection(132000, `${where}: template has no button at index ${button.index}`);
  }
  if (actualType !== expectedType) {
    // A sub_type that contradicts the template's button is 132018 (reference §7 item 3).
    const metaType = META_BUTTON_TYPE[actualType] ?? actualType;
    throw new GraphRejection(132018, `buttons: Button at index ${button.index} must be of type ${metaType}`);
  }

  if (button.subType === 'quick_reply') {
    button.parameters.forEach((p, i) => readParameter(p, `${where}.parameters[${i}]`, { allowed: ['payload'], named }));
    if (button.parameters.length !== 1) {
      const got = button.parameters.length;
      throw new GraphRejection(132000, `${where} (quick_reply): expected 1 parameters, got ${got}`);
    }
    return;
  }
  const variables = entry.requirements.urlButtons.find((u) => u.index === button.index)?.variables ?? [];
  // Whether a NAMED template's URL-button variable carries `parameter_name` is conflicting in
  // the reference (cloud-api.md lines 139-144, 628), which says a simulator should accept both
  // shapes: named values are matched by name, values without names by position.
  const values = button.parameters.map((p, i) =>
    readParameter(p, `${where}.parameters[${i}]`, { allowed: ['text'], named, nameOptional: true }),
  );
  matchVariables(`${where} (url)`, variables, values, named && values.some((v) => v.name !== undefined));
}

/**
 * Pairs sent values with the template's variables: by position for POSITIONAL templates,
 * by `parameter_name` for NAMED ones. Any surplus, gap or duplicate is 132000.
 */
export function matchVariables(
  where: string,
  variables: readonly string[],
  values: readonly ParameterValue[],
  named: boolean,
): Map<string, string> {
  const byName = new Map<string, string>();
  if (!named) {
    if (values.length !== variables.length) {
      throw new GraphRejection(132000, `${where}: expected ${variables.length} parameters, got ${values.length}`);
    }
    variables.forEach((variable, i) => byName.set(variable, values[i]?.text ?? ''));
    return byName;
  }
  for (const value of values) {
    const name = value.name ?? '';
    if (!variables.includes(name)) {
      throw new GraphRejection(132000, `${where}: unknown parameter_name ${name}; expected ${variables.join(', ') || 'no parameters'}`);
    }
    if (byName.has(name)) throw new GraphRejection(132000, `${where}: parameter_name ${name} is given twice`);
    byName.set(name, value.text ?? '');
  }
  const missing = variables.filter((v) => !byName.has(v));
  if (missing.length > 0) {
    throw new GraphRejection(
      132000,
      `${where}: expected ${variables.length} parameters, got ${values.length} (missing ${missing.join(', ')})`,
    );
  }
  return byName;
}
