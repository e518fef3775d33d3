import type { TemplateView } from '../../app/views/template-view.js';
import { placeholdersIn } from '../../templates/template-requirements.js';
import type { MessageTemplate } from '../../templates/template-schema.js';
import { suggestColumn } from './column-suggestions.js';

/** A template as the templates answer has it: the API's view (`campaign templates list --json`), or Meta's own (its components). */
export type TemplateInput = TemplateView | MessageTemplate;

export type ModelHeader =
  { kind: 'none' } | { kind: 'text'; text: string; variables: string[] } | { kind: 'media'; format: string } | { kind: 'location' };

/** A template as the page uses it, whichever shape it came in. */
export interface TemplateModel {
  name: string;
  language: string;
  category: string;
  status: string;
  positional: boolean;
  header: ModelHeader;
  body: { text: string; variables: string[] };
  footer: string | null;
  buttons: { index: number; type: string; text: string; variables: string[] }[];
}

/** What the template needs from the file; `key` names it in the mapping, `name` is its variable (or the media header's). */
export interface Slot {
  key: string;
  kind: 'body' | 'header' | 'media' | 'button';
  name: string;
  label: string;
}

/** Each slot's column, by the slot's key; null while none is chosen. */
export type Mapping = Record<string, string | null>;

/** Its message's parts, from either shape: Meta's components, or the API's header and preview texts. */
interface Parts {
  format: 'POSITIONAL' | 'NAMED';
  header: ModelHeader;
  body: string;
  footer: string | null;
  buttons: { type: string; text?: string | null | undefined; url?: string | null | undefined }[];
}

function partsOfMeta(t: MessageTemplate): Parts {
  const parts: Parts = { format: t.parameter_format ?? 'POSITIONAL', header: { kind: 'none' }, body: '', footer: null, buttons: [] };
  for (const c of t.components) {
    if (c.type === 'HEADER') {
      const text = c.text ?? '';
      if (c.format === 'TEXT') parts.header = { kind: 'text', text, variables: [] };
      else parts.header = c.format === 'LOCATION' ? { kind: 'location' } : { kind: 'media', format: c.format };
    } else if (c.type === 'BODY') parts.body = c.text;
    else if (c.type === 'FOOTER') parts.footer = c.text;
    else if (c.type === 'BUTTONS') parts.buttons = c.buttons;
  }
  return parts;
}

function partsOfView(t: TemplateView): Parts {
  const preview = t.preview;
  const header: ModelHeader =
    t.header.kind === 'text' ? { kind: 'text', text: t.header.text || (preview.header?.text ?? ''), variables: [] } : t.header;
  return { format: t.parameterFormat, header, body: preview.body, footer: preview.footer, buttons: preview.buttons };
}

/** A template of the templates answer as the page uses it: its variables found in its texts as the service finds them. */
export function templateModel(t: TemplateInput): TemplateModel {
  const parts = 'components' in t ? partsOfMeta(t) : partsOfView(t);
  const format = parts.format;
  const header = parts.header.kind === 'text' ? { ...parts.header, variables: placeholdersIn(parts.header.text, format) } : parts.header;
  return {
    name: t.name,
    language: t.language,
    category: t.category ?? '',
    status: t.status,
    positional: format !== 'NAMED',
    header,
    body: { text: parts.body, variables: placeholdersIn(parts.body, format) },
    footer: parts.footer || null,
    buttons: parts.buttons.map((button, index) => ({
      index,
      type: button.type.toUpperCase(),
      text: button.text ?? '',
      variables: placeholdersIn(button.url ?? '', format),
    })),
  };
}

/**
 * What the template needs from the file, in the spec's order: body variables, the header's
 * text variable or media link, then one column per URL button with a variable.
 */
export function slotsOf(model: TemplateModel): Slot[] {
  const slots: Slot[] = model.body.variables.map((v) => ({ key: `body:${v}`, kind: 'body', name: v, label: `{{${v}}} in the body` }));
  const header = model.header;
  const headerVariable = header.kind === 'text' ? header.variables[0] : undefined;
  if (headerVariable !== undefined) {
    slots.push({ key: 'header:text', kind: 'header', name: headerVariable, label: `the header's {{${headerVariable}}}` });
  }
  if (header.kind === 'media') {
    const media = header.format.toLowerCase();
    slots.push({ key: 'header:media', kind: 'media', name: `header_${media}`, label: `the header ${media} (an https link)` });
  }
  for (const button of model.buttons) {
    const variable = button.variables[0];
    if (button.type !== 'URL' || variable === undefined) continue;
    slots.push({ key: `button:${button.index}`, kind: 'button', name: variable, label: `the link of button "${button.text}"` });
  }
  return slots;
}

/** Suggested columns for the slots: by the variable's name (positional variables have none: left to choose). */
export function suggestMapping(model: TemplateModel, header: readonly string[]): Mapping {
  const mapping: Mapping = {};
  for (const slot of slotsOf(model)) {
    const named = !(model.positional && /^\d+$/.test(slot.name));
    mapping[slot.key] = named ? suggestColumn(slot.name, header) : null;
  }
  return mapping;
}
