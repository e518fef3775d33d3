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
  /**
   * What a send of this template must fill that this version cannot (a carousel's cards, a
   * limited-time offer's expiry, a coupon code…), each named as an operator reads it. Sending
   * without them is a request Meta refuses, so a campaign of such a template is refused before
   * anything is sent. Absent or empty: nothing.
   */
  unfillable?: string[];
}

/**
 * Buttons whose send needs a parameter this version does not fill (Meta's templates/components
 * page): a coupon's code (COPY_CODE), an authentication code (OTP), a multi-product message's
 * products (MPM). Quick replies, phone numbers, flows and catalogs send without one.
 */
const BUTTONS_NEEDING_A_VALUE: ReadonlyMap<string, string> = new Map([
  ['COPY_CODE', 'a copy-code button (its coupon code)'],
  ['OTP', 'a one-time-password button (its code)'],
  ['MPM', 'a multi-product button (its products)'],
]);

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
  const unfillable: string[] = [];

  for (const component of template.components) {
    switch (component.type) {
      case 'HEADER':
        if (component.format === 'TEXT') {
          const text = component.text ?? '';
          header = { kind: 'text', text, variables: placeholdersIn(text, format) };
        } else if (component.format === 'LOCATION') {
          header = { kind: 'location' };
          unfillable.push('a LOCATION header (its place)');
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
          const needs = BUTTONS_NEEDING_A_VALUE.get(button.type);
          if (needs !== undefined) unfillable.push(needs);
          if (button.type !== 'URL' || button.url === undefined) return;
          const variables = placeholdersIn(button.url, format);
          if (variables.length > 0) urlButtons.push({ index, variables });
        });
        break;
      case 'FOOTER':
        break;
      case 'CAROUSEL':
        unfillable.push('a CAROUSEL (its cards)');
        break;
      case 'LIMITED_TIME_OFFER':
        unfillable.push("a LIMITED_TIME_OFFER (its offer's expiry)");
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
    ...(unfillable.length === 0 ? {} : { unfillable }),
  };
}
