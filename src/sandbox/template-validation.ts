import { GraphRejection } from './graph-error.js';
import { INVALID, rejectUnknownKeys, requireObject, requireString, optionalString } from './json-checks.js';
import { checkTemplateComponents, type KindContext } from './template-kinds.js';
import type { TemplateEntry } from './templates-store.js';

export { MAX_RENDERED_BODY } from './template-kinds.js';
export { matchVariables } from './kinds/variables.js';

/**
 * The `template` object of a send (reference §1.4, checklist §7 items 2–5): which approved
 * template it names and whether its components supply what that template's kind requires
 * (template-kinds.ts). Throws GraphRejection with Meta's code for the first problem found;
 * returns the catalogue entry (its category decides what the sandbox reports later, e.g. opt-outs).
 */
export interface TemplateLookup {
  find(name: string, language: string): TemplateEntry | undefined;
}

const TEMPLATE_KEYS = new Set(['name', 'language', 'components']);
const LANGUAGE_KEYS = new Set(['code', 'policy']);

/**
 * `context.media`: the uploads a media `id` must name (an unknown one is noted, not refused:
 * media-object.ts); `context.endpoint`: /messages or /marketing_messages (a GIF header needs the latter).
 */
export function checkTemplate(value: unknown, templates: TemplateLookup, context: KindContext = {}): TemplateEntry {
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

  checkTemplateComponents(entry.shape, (components ?? []) as unknown[], context);
  return entry;
}
