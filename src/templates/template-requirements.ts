import type { MessageTemplate } from './template-schema.js';

/**
 * What a send of one template needs, derived from its approved components. The producer,
 * the worker and the sandbox all ask this module, so they can never disagree about how many
 * parameters a template takes or in what order.
 */
export type MediaFormat = 'IMAGE' | 'VIDEO' | 'DOCUMENT';

export type HeaderRequirement =
  { kind: 'none' } | { kind: 'text'; text: string; variables: string[] } | { kind: 'media'; format: MediaFormat } | { kind: 'location' };

export interface UrlButtonRequirement {
  /** Position of the button in the template, sent as the string `index`. */
  index: number;
  variables: string[];
}

export interface TemplateRequirements {
  /** Graph's ID of the template, when the list it came from has one (to change the template, e.g. its TTL). */
  id?: string | undefined;
  name: string;
  language: string;
  status: string;
  category: string | undefined;
  parameterFormat: 'POSITIONAL' | 'NAMED';
  header: HeaderRequirement;
  body: { text: string; variables: string[] };
  urlButtons: UrlButtonRequirement[];
}

/** `{{1}}` or `{{first_name}}`; group 1 is the name. Global: use with matchAll/replace. */
export const PLACEHOLDER = /\{\{\s*([A-Za-z0-9_]+)\s*\}\}/g;

/**
 * Placeholder names in a text. Positional templates come back sorted by number
 * (`{{2}} … {{1}}` still takes parameter 1 first); named ones in order of first appearance.
 */
export function placeholdersIn(text: string, format: 'POSITIONAL' | 'NAMED'): string[] {
  const seen = new Set<string>();
  for (const match of text.matchAll(PLACEHOLDER)) seen.add(match[1] ?? '');
  const names = [...seen];
  return format === 'POSITIONAL' ? names.sort((a, b) => Number(a) - Number(b)) : names;
}

/** The text with each `{{name}}` replaced by its value (unknown names are left as written). */
export function renderPlaceholders(text: string, values: ReadonlyMap<string, string>): string {
  return text.replace(PLACEHOLDER, (whole, name: string) => values.get(name) ?? whole);
}

export function requirementsOf(template: MessageTemplate): TemplateRequirements {
  const format = template.parameter_format;
  let header: HeaderRequirement = { kind: 'none' };
  let body = { text: '', variables: [] as string[] };
  const urlButtons: UrlButtonRequirement[] = [];

  for (const component of template.components) {
    switch (component.type) {
      case 'HEADER':
        if (component.format === 'TEXT') {
          const text = component.text ?? '';
          header = { kind: 'text', text, variables: placeholdersIn(text, format) };
        } else if (component.format === 'LOCATION') {
          header = { kind: 'location' };
        } else {
          // GIF headers are sent as video, as Meta documents for animated headers.
          header = { kind: 'media', format: component.format === 'GIF' ? 'VIDEO' : component.format };
        }
        break;
      case 'BODY':
        body = { text: component.text, variables: placeholdersIn(component.text, format) };
        break;
      case 'BUTTONS':
        component.buttons.forEach((button, index) => {
          if (button.type !== 'URL' || button.url === undefined) return;
          const variables = placeholdersIn(button.url, format);
          if (variables.length > 0) urlButtons.push({ index, variables });
        });
        break;
      case 'FOOTER':
        break;
    }
  }

  return {
    ...(template.id === undefined ? {} : { id: template.id }),
    name: template.name,
    language: template.language,
    status: template.status,
    category: template.category,
    parameterFormat: format,
    header,
    body,
    urlButtons,
  };
}
