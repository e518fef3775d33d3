import type { TemplateView } from '../../app/views/template-view.js';
import { templateSlots } from '../../templates/slots/template-slots.js';
import type { CardComponent, MessageTemplate, TemplateComponent } from '../../templates/template-schema.js';

/** A template as the templates answer has it: the API's view (`campaign templates list --json`), or Meta's own (its components). */
export type TemplateInput = TemplateView | MessageTemplate;

/** A header as the page draws it; a text header's variables are found later, as the service finds them. */
export type HeaderPart =
  { kind: 'none' } | { kind: 'text'; text: string } | { kind: 'media'; format: string } | { kind: 'location' } | { kind: 'product' };

export interface ButtonPart {
  type: string;
  text?: string | null | undefined;
  url?: string | null | undefined;
}

export interface CardPart {
  header: HeaderPart;
  body: string;
  buttons: ButtonPart[];
}

/** A slot as the templates answer lists it: the name a mapping uses (`body.1`, `card.0.header.image`). */
export interface SlotPart {
  name: string;
  kind: string;
  required: boolean;
  about: string;
  /** Filled from that slot, never mapped itself (an authentication code's button). */
  sameAs: string | null;
}

/** A template's message, from either shape: what the page maps and draws. */
export interface Parts {
  format: 'POSITIONAL' | 'NAMED';
  kind: string;
  slots: SlotPart[];
  header: HeaderPart;
  body: string;
  footer: string | null;
  buttons: ButtonPart[];
  cards: CardPart[];
  offer: { text: string; countdown: boolean } | null;
}

function headerPart(format: string, text: string | undefined): HeaderPart {
  if (format === 'TEXT') return { kind: 'text', text: text ?? '' };
  if (format === 'LOCATION') return { kind: 'location' };
  if (format === 'PRODUCT') return { kind: 'product' };
  return { kind: 'media', format };
}

/** A card's header, body and buttons, from Meta's card components. */
function cardOfMeta(components: readonly CardComponent[]): CardPart {
  const card: CardPart = { header: { kind: 'none' }, body: '', buttons: [] };
  for (const c of components) {
    if (c.type === 'HEADER') card.header = headerPart(c.format, c.text);
    else if (c.type === 'BODY') card.body = c.text;
    else card.buttons = c.buttons;
  }
  return card;
}

function applyMeta(parts: Parts, c: TemplateComponent): void {
  if (c.type === 'HEADER') parts.header = headerPart(c.format, c.text);
  else if (c.type === 'BODY') parts.body = c.text;
  else if (c.type === 'FOOTER') parts.footer = c.text;
  else if (c.type === 'BUTTONS') parts.buttons = c.buttons;
  else if (c.type === 'CAROUSEL') parts.cards = c.cards.map((card) => cardOfMeta(card.components));
  else parts.offer = { text: c.limited_time_offer?.text ?? '', countdown: c.limited_time_offer?.has_expiration === true };
}

/** Meta's shape: its components, and its slots as the service reads them (templateSlots). */
function partsOfMeta(t: MessageTemplate): Parts {
  const { kind, slots } = templateSlots(t);
  const parts: Parts = {
    format: t.parameter_format ?? 'POSITIONAL',
    kind,
    slots: slots.map((s) => ({ name: s.name, kind: s.kind, required: s.required, about: s.about, sameAs: s.sameAs ?? null })),
    header: { kind: 'none' },
    body: '',
    footer: null,
    buttons: [],
    cards: [],
    offer: null,
  };
  for (const c of t.components) applyMeta(parts, c);
  return parts;
}

/** The API's view: its slots and kind as the service gives them, its texts from the preview. */
function partsOfView(t: TemplateView): Parts {
  const preview = t.preview;
  const header: HeaderPart = t.header.kind === 'text' ? { kind: 'text', text: t.header.text || (preview.header?.text ?? '') } : t.header;
  const cards = (preview.cards ?? []).map((card) => ({
    header: card.header === null ? ({ kind: 'none' } as const) : headerPart(card.header.format, undefined),
    body: card.body ?? '',
    buttons: card.buttons,
  }));
  const offer = preview.offer === undefined ? null : { text: preview.offer.text ?? '', countdown: preview.offer.hasExpiration };
  // A view of an older service has no slots: the page then maps nothing, and the service maps columns named as the slots.
  return {
    format: t.parameterFormat,
    kind: t.kind ?? 'standard',
    slots: t.slots ?? [],
    header,
    body: preview.body,
    footer: preview.footer,
    buttons: preview.buttons,
    cards,
    offer,
  };
}

export function partsOf(t: TemplateInput): Parts {
  return 'components' in t ? partsOfMeta(t) : partsOfView(t);
}
