import type { CardComponent, MessageTemplate, TemplateButton, TemplateComponent } from '../template-schema.js';
import { placeholdersIn } from '../placeholders.js';
import type { ButtonSubType, MediaKind, SlotPlace, TemplateKind, TemplateSlot } from './template-slot.js';

/**
 * Every slot of a template, in the order a send carries them (header, body, offer, buttons,
 * then each card's), and its kind. The one reading of a template's components that the
 * producer, the worker, the listings and the sandbox share, so they never disagree about
 * what a send must carry.
 */
export interface TemplateSlots {
  kind: TemplateKind;
  slots: TemplateSlot[];
}

type Format = MessageTemplate['parameter_format'];

export function templateSlots(template: MessageTemplate): TemplateSlots {
  const format = template.parameter_format;
  const authentication = template.category === 'AUTHENTICATION';
  const offer = template.components.some((c) => c.type === 'LIMITED_TIME_OFFER');
  const slots: TemplateSlot[] = [];
  for (const component of template.components) {
    if (component.type === 'CAROUSEL') {
      // A carousel's cards are read after the rest, so their slots follow the message's own.
      component.cards.forEach((card, index) => slots.push(...componentSlots(card.components, format, { card: index })));
    } else if (component.type === 'LIMITED_TIME_OFFER') {
      // Meta: `has_expiration` is optional and shows the countdown only when true; without it a send carries no expiry.
      if (component.limited_time_offer?.has_expiration === true) slots.push(offerExpiry());
    } else {
      slots.push(...componentSlots([component], format, { authentication, offer }));
    }
  }
  if (slots.some((s) => s.kind === 'product')) slots.push(catalogSlot());
  if (authentication) {
    for (const s of slots) if (s.name === 'body.1' && slots.some((o) => o.sameAs === 'body.1')) s.maxLength = OTP_MAX;
  }
  return { kind: kindOf(template), slots: sendOrder(slots) };
}

/** Meta requires `catalog_id` beside every product header's `product_retailer_id` (catalogs/spm-template-messages). */
function catalogSlot(): TemplateSlot {
  return {
    name: 'catalog_id',
    kind: 'catalog_id',
    required: true,
    about: 'the ID of the catalog the products are in',
    component: 'header',
  };
}

/** Meta's send examples put header, body, offer and buttons in that order, then the carousel. */
function sendOrder(slots: TemplateSlot[]): TemplateSlot[] {
  const rank = (s: TemplateSlot): number =>
    s.card !== undefined ? 10 + s.card : ['header', 'body', 'limited_time_offer', 'button'].indexOf(s.component);
  return slots
    .map((slot, i) => ({ slot, i }))
    .sort((a, b) => rank(a.slot) - rank(b.slot) || a.i - b.i)
    .map(({ slot }) => slot);
}

interface Scope {
  card?: number;
  authentication?: boolean;
  /** The template has a limited-time offer (its coupon code is shorter). */
  offer?: boolean;
}

function componentSlots(components: readonly (TemplateComponent | CardComponent)[], format: Format, scope: Scope): TemplateSlot[] {
  const slots: TemplateSlot[] = [];
  for (const component of components) {
    if (component.type === 'HEADER') slots.push(...headerSlots(component.format, component.text, format, scope));
    else if (component.type === 'BODY') {
      for (const variable of placeholdersIn(component.text, format)) {
        slots.push(slot(scope, `body.${variable}`, 'text', true, `body variable {{${variable}}}`, { component: 'body', variable }));
      }
    } else if (component.type === 'BUTTONS') {
      component.buttons.forEach((button, index) => slots.push(...buttonSlots(button, index, format, scope)));
    }
  }
  return slots;
}

function headerSlots(headerFormat: string, text: string | undefined, format: Format, scope: Scope): TemplateSlot[] {
  const place = { component: 'header' as const };
  switch (headerFormat) {
    case 'TEXT':
      return placeholdersIn(text ?? '', format).map((variable) =>
        slot(scope, `header.${variable}`, 'text', true, `header variable {{${variable}}}`, { ...place, variable }),
      );
    case 'IMAGE':
    case 'VIDEO':
    case 'DOCUMENT':
    case 'GIF': {
      const media = headerFormat.toLowerCase() as MediaKind;
      const link = slot(scope, `header.${media}`, 'media', true, `the header ${media}: an https link`, { ...place, media });
      if (media !== 'document') return [link];
      return [link, slot(scope, 'header.document.filename', 'filename', false, "the document's file name as shown", { ...place, media })];
    }
    case 'LOCATION':
      return [
        slot(scope, 'header.location', 'location', true, 'the place: latitude,longitude (e.g. 52.52,13.405)', place),
        slot(scope, 'header.location.name', 'location_name', false, "the place's name", place),
        slot(scope, 'header.location.address', 'location_address', false, "the place's address", place),
      ];
    case 'PRODUCT':
      return [slot(scope, 'header.product', 'product', true, "the product's retailer ID in the catalog", place)];
    // The catalog ID it needs is one slot for the message (catalogSlot), not one per card.
    default:
      return [];
  }
}

/** Meta's `sub_type` for a template button type, for the buttons a send may carry a value for. */
const SUB_TYPES: Readonly<Record<string, ButtonSubType>> = {
  URL: 'url',
  QUICK_REPLY: 'quick_reply',
  COPY_CODE: 'copy_code',
  OTP: 'url',
  FLOW: 'flow',
  CATALOG: 'catalog',
  MPM: 'mpm',
  SPM: 'spm',
};

function buttonSlots(button: TemplateButton, index: number, format: Format, scope: Scope): TemplateSlot[] {
  const subType = SUB_TYPES[button.type];
  if (subType === undefined) return []; // PHONE_NUMBER, VOICE_CALL: nothing to fill
  const place = { component: 'button' as const, button: { index, subType } };
  const at = `button.${index}`;
  switch (button.type) {
    case 'URL': {
      const variables = placeholdersIn(button.url ?? '', format);
      if (variables.length === 0) return [];
      // Meta lists an authentication template's OTP button as a URL button whose variable is the code.
      if (scope.authentication === true) return [otpSlot(scope, at, place)];
      return [slot(scope, `${at}.url`, 'url', true, `the end of button ${index}'s link`, { ...place, variable: variables[0] })];
    }
    case 'QUICK_REPLY':
      // Optional on the message and on a carousel's cards alike (media-card-carousel-templates: "Optional").
      return [slot(scope, `${at}.payload`, 'payload', false, `what a tap on "${button.text ?? ''}" sends back`, place)];
    case 'COPY_CODE': {
      // "Maximum 20 characters" (coupon-templates); an offer's code "Maximum 15 characters" (limited-time-offer-templates).
      const maxLength = scope.offer === true ? 15 : 20;
      return [{ ...slot(scope, `${at}.coupon_code`, 'coupon_code', true, 'the coupon code the button copies', place), maxLength }];
    }
    case 'OTP':
      return [otpSlot(scope, at, place)];
    case 'FLOW':
      return [
        slot(scope, `${at}.flow_token`, 'flow_token', false, 'identifies this send in the Flow\'s answer (default "unused")', place),
        slot(scope, `${at}.flow_action_data`, 'flow_action_data', false, "the Flow's first screen data, a JSON object", place),
      ];
    case 'CATALOG':
      return [slot(scope, `${at}.thumbnail`, 'thumbnail', false, 'the product whose image heads the message (default: the first)', place)];
    case 'MPM':
      return [
        slot(scope, `${at}.thumbnail`, 'thumbnail', true, 'the product whose image heads the message', place),
        slot(scope, `${at}.sections`, 'sections', true, 'the products: "Title: id1, id2; Other title: id3"', place),
      ];
    default:
      return [];
  }
}

/**
 * An authentication template's code is given once, as the body's {{1}}, and sent twice: "this
 * value must appear twice" (templates/authentication-templates), for copy-code, one-tap and zero-tap alike.
 */
function otpSlot(scope: Scope, at: string, place: SlotPlace): TemplateSlot {
  return {
    ...slot(scope, `${at}.code`, 'text', true, 'the one-time code, filled from body.1', place),
    sameAs: 'body.1',
    maxLength: OTP_MAX,
  };
}

/** "Maximum 15 characters" for the one-time password (authentication-templates), in the body and the button alike. */
const OTP_MAX = 15;

function offerExpiry(): TemplateSlot {
  return {
    name: 'lto.expiration',
    kind: 'expiration',
    required: true,
    about: 'when the offer ends: an ISO 8601 time with offset, or epoch milliseconds',
    component: 'limited_time_offer',
  };
}

function slot(scope: Scope, name: string, kind: TemplateSlot['kind'], required: boolean, about: string, place: SlotPlace): TemplateSlot {
  const card = scope.card;
  return card === undefined
    ? { name, kind, required, about, ...place }
    : { name: `card.${card}.${name}`, kind, required, about: `card ${card}: ${about}`, ...place, card };
}

function kindOf(template: MessageTemplate): TemplateKind {
  if (template.category === 'AUTHENTICATION') return 'authentication';
  const types = new Set<string>();
  let carousel: 'media_carousel' | 'product_carousel' | undefined;
  for (const component of template.components) {
    if (component.type === 'BUTTONS') for (const b of component.buttons) types.add(b.type);
    if (component.type === 'HEADER' && component.format === 'PRODUCT') types.add('PRODUCT');
    if (component.type === 'LIMITED_TIME_OFFER') types.add('LIMITED_TIME_OFFER');
    if (component.type === 'CAROUSEL') {
      const products = component.cards.some((c) => c.components.some((k) => k.type === 'HEADER' && k.format === 'PRODUCT'));
      carousel = products ? 'product_carousel' : 'media_carousel';
    }
  }
  if (carousel !== undefined) return carousel;
  if (types.has('LIMITED_TIME_OFFER')) return 'limited_time_offer';
  if (types.has('MPM')) return 'multi_product';
  if (types.has('CATALOG')) return 'catalog';
  if (types.has('SPM') || types.has('PRODUCT')) return 'single_product';
  if (types.has('COPY_CODE')) return 'coupon_code';
  if (types.has('FLOW')) return 'flow';
  return 'standard';
}
