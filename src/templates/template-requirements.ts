import type { MessageTemplate } from './template-schema.js';
import type { TemplateKind, TemplateSlot } from './slots/template-slot.js';
import { templateSlots } from './slots/template-slots.js';
import { placeholdersIn } from './placeholders.js';

/**
 * What a send of one template needs, derived from its approved components. The producer,
 * the worker and the sandbox all ask this module, so they can never disagree about how many
 * parameters a template takes or in what order.
 */
export type MediaFormat = 'IMAGE' | 'VIDEO' | 'DOCUMENT' | 'GIF';

export type HeaderRequirement =
  | { kind: 'none' }
  | { kind: 'text'; text: string; variables: string[] }
  | { kind: 'media'; format: MediaFormat }
  | { kind: 'location' }
  | { kind: 'product' };

export interface UrlButtonRequirement {
  /** Position of the button in the template, sent as the string `index`. */
  index: number;
  variables: string[];
  /** The button's link as approved, its variable unfilled (`https://shop.example.com/t/{{1}}`): where a tracked link must point. */
  url: string;
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
  /** A carousel's card bodies as approved, in card order ('' for a card without one); empty without a carousel. */
  cardBodies: string[];
  /** What kind of template it is (src/templates/slots/template-slot.ts). */
  kind: TemplateKind;
  /** Every slot a send must or may fill, in send order: the one list the producer, the worker and the listings use. */
  slots: TemplateSlot[];
}

export { PLACEHOLDER, placeholdersIn, renderPlaceholders } from './placeholders.js';

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
        } else if (component.format === 'PRODUCT') {
          header = { kind: 'product' };
        } else {
          header = { kind: 'media', format: component.format };
        }
        break;
      case 'BODY':
        body = { text: component.text, variables: placeholdersIn(component.text, format) };
        break;
      case 'BUTTONS':
        component.buttons.forEach((button, index) => {
          if (button.type !== 'URL' || button.url === undefined) return;
          const variables = placeholdersIn(button.url, format);
          if (variables.length > 0) urlButtons.push({ index, variables, url: button.url });
        });
        break;
      default:
        // Footers carry nothing to fill; carousels and offers are read as slots (templateSlots).
        break;
    }
  }
  const { kind, slots } = templateSlots(template);
  const carousel = template.components.find((c) => c.type === 'CAROUSEL');
  const cardBodies = carousel?.cards.map((card) => card.components.find((c) => c.type === 'BODY')?.text ?? '') ?? [];

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
    cardBodies,
    kind,
    slots,
  };
}
