import type { MediaKind, TemplateKind, TemplateSlot } from '../../templates/slots/template-slot.js';
import { templateSlots } from '../../templates/slots/template-slots.js';
import { placeholdersIn } from '../../templates/template-requirements.js';
import type { CardComponent, MessageTemplate, TemplateComponent } from '../../templates/template-schema.js';

/**
 * What a send of one template must and may carry, read once when the catalogue loads. What the
 * template requires comes from templateSlots (the one reading the producer shares), so the
 * sandbox never disagrees with it about a template's structure; where Meta's pages are looser
 * than a slot (noted below), the sandbox follows Meta, which takes the send.
 */
export type HeaderShape =
  /** No header, or one without variables: a send carries no header component. */
  | { kind: 'none' }
  | { kind: 'text'; variables: string[] }
  | { kind: 'media'; media: MediaKind }
  | { kind: 'location' }
  | { kind: 'product' };

export interface ButtonShape {
  index: number;
  /** The `sub_type` a send names this button by. */
  subType: string;
  /** Meta's name for its type in error details ("Button at index 1 of type CopyCode …"). */
  metaType: string;
  /** A send without a component for it is malformed (131008). */
  required: boolean;
  /** A send may carry a component for it; a static URL, a phone number or a View (SPM) button takes none. */
  takesValue: boolean;
  /** A URL button's variables. */
  variables: string[];
}

/** The header, body and buttons of the message itself or of one carousel card. */
export interface PartShape {
  header: HeaderShape;
  bodyText: string;
  bodyVariables: string[];
  buttons: ButtonShape[];
}

export interface TemplateShape {
  kind: TemplateKind;
  named: boolean;
  part: PartShape;
  /** A limited-time offer; `expiring` when its countdown's end must be sent. */
  offer: { expiring: boolean } | undefined;
  carousel: { cards: PartShape[]; products: boolean } | undefined;
  /** An authentication template's code: the body variable and the URL button that must carry it twice. */
  otp: { bodyVariable: string; button: number } | undefined;
}

/** A template button's type → its send `sub_type` and Meta's name for it (templates/components; §17 of the kinds research). */
const BUTTON_TYPES: Readonly<Record<string, readonly [string, string]>> = {
  URL: ['url', 'Url'],
  // An authentication button is created as OTP and listed as URL ("WhatsApp sets the button type to URL").
  OTP: ['url', 'Url'],
  QUICK_REPLY: ['quick_reply', 'QuickReply'],
  COPY_CODE: ['copy_code', 'CopyCode'],
  FLOW: ['flow', 'Flow'],
  CATALOG: ['catalog', 'Catalog'],
  MPM: ['mpm', 'Mpm'],
  SPM: ['spm', 'Spm'],
  VOICE_CALL: ['voice_call', 'VoiceCall'],
  PHONE_NUMBER: ['phone_number', 'PhoneNumber'],
};

export function templateShape(template: MessageTemplate): TemplateShape {
  const { kind, slots } = templateSlots(template);
  const format = template.parameter_format;
  const shape: TemplateShape = {
    kind,
    named: format === 'NAMED',
    part: partShape(
      template.components,
      slots.filter((s) => s.card === undefined),
      format,
    ),
    offer: undefined,
    carousel: undefined,
    otp: otpOf(slots),
  };
  for (const component of template.components) {
    if (component.type === 'LIMITED_TIME_OFFER') {
      // Meta: has_expiration is "Optional. Set to true to have the offer expiration details appear".
      // templateSlots also asks for the expiry when has_expiration is absent; Meta does not.
      shape.offer = { expiring: component.limited_time_offer?.has_expiration === true };
    } else if (component.type === 'CAROUSEL') {
      const cards = component.cards.map((card, index) =>
        partShape(
          card.components,
          slots.filter((s) => s.card === index),
          format,
        ),
      );
      shape.carousel = { cards, products: kind === 'product_carousel' };
    }
  }
  return shape;
}

type Components = readonly (TemplateComponent | CardComponent)[];

/** A part's buttons are the template's, by position; what each needs is read from its slots. */
function partShape(components: Components, slots: TemplateSlot[], format: 'POSITIONAL' | 'NAMED'): PartShape {
  const body = components.find((c) => c.type === 'BODY');
  const buttons = components.flatMap((c) => (c.type === 'BUTTONS' ? c.buttons : []));
  return {
    header: headerShape(slots.filter((s) => s.component === 'header')),
    bodyText: body?.text ?? '',
    bodyVariables: slots.flatMap((s) => (s.component === 'body' && s.variable !== undefined ? [s.variable] : [])),
    buttons: buttons.map((button, index) => {
      const type = button.type.toUpperCase();
      const [subType, metaType] = BUTTON_TYPES[type] ?? [type.toLowerCase(), type];
      const own = slots.filter((s) => s.button?.index === index);
      return {
        index,
        subType,
        metaType,
        // A quick reply's payload is "Optional" at Meta, in a carousel card too (media-card-carousel-templates).
        required: subType !== 'quick_reply' && own.some((s) => s.required),
        // A voice-call button takes an optional TTL and payload (calling/call-button-messages-deep-links).
        takesValue: own.length > 0 || subType === 'voice_call',
        variables: subType === 'url' ? placeholdersIn(button.url ?? '', format) : [],
      };
    }),
  };
}

function headerShape(slots: TemplateSlot[]): HeaderShape {
  const variables = slots.flatMap((s) => (s.kind === 'text' && s.variable !== undefined ? [s.variable] : []));
  if (variables.length > 0) return { kind: 'text', variables };
  const media = slots.find((s) => s.kind === 'media')?.media;
  if (media !== undefined) return { kind: 'media', media };
  if (slots.some((s) => s.kind === 'location')) return { kind: 'location' };
  if (slots.some((s) => s.kind === 'product')) return { kind: 'product' };
  return { kind: 'none' };
}

/** templateSlots marks the code's second place with `sameAs` (the body variable it repeats). */
function otpOf(slots: TemplateSlot[]): TemplateShape['otp'] {
  const slot = slots.find((s) => s.sameAs !== undefined && s.button !== undefined);
  if (slot?.sameAs === undefined || slot.button === undefined) return undefined;
  return { bodyVariable: slot.sameAs.replace(/^body\./, ''), button: slot.button.index };
}
