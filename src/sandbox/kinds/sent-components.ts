import { GraphRejection } from '../graph-error.js';
import { INVALID, rejectUnknownKeys, requireObject, requireString } from '../json-checks.js';

/**
 * The `components` of a template send, read for their shape only (keys, types, indexes); what
 * they must contain is judged against the template after. Meta's send examples for each kind
 * (templates/components, the marketing-template and catalog pages, flows/guides/sendingaflow)
 * use these component types: header, body, button, limited_time_offer and carousel, whose cards
 * carry header, body and button components of their own.
 */
export interface SentList {
  where: string;
  parameters: unknown[];
}

export interface SentButton {
  where: string;
  /** Absent only for a voice-call button (Meta's example sends it without one). */
  index: number | undefined;
  subType: string;
  /** Absent only where Meta allows it to be omitted (a catalog button). */
  parameters: unknown[] | undefined;
}

export interface SentPart {
  header?: SentList;
  body?: SentList;
  buttons: SentButton[];
}

export interface SentCard {
  where: string;
  index: number;
  part: SentPart;
}

export interface SentTemplate extends SentPart {
  offer?: SentList;
  carousel?: { where: string; cards: SentCard[] };
}

const LIST_KEYS = new Set(['type', 'parameters']);
const BUTTON_KEYS = new Set(['type', 'sub_type', 'index', 'parameters']);
const CAROUSEL_KEYS = new Set(['type', 'cards']);
const CARD_KEYS = new Set(['card_index', 'components']);

/**
 * The `sub_type`s Meta defines. Meta writes them in lower case, except the catalog page, whose
 * example sends `"sub_type": "CATALOG"`: that one is taken in any case.
 */
const SUB_TYPES = new Set(['url', 'quick_reply', 'copy_code', 'flow', 'catalog', 'mpm', 'spm', 'voice_call', 'order_details']);

export function readSentComponents(components: unknown[]): SentTemplate {
  const sent: SentTemplate = { buttons: [] };
  components.forEach((raw, position) => {
    const where = `template.components[${position}]`;
    const component = requireObject(raw, where);
    const type = requireString(component, 'type', where);
    if (type === 'carousel') {
      if (sent.carousel !== undefined) throw new GraphRejection(INVALID, `Duplicate carousel component at ${where}`);
      rejectUnknownKeys(component, CAROUSEL_KEYS, where);
      sent.carousel = { where, cards: readCards(component['cards'], `${where}.cards`) };
    } else if (type === 'limited_time_offer') {
      if (sent.offer !== undefined) throw new GraphRejection(INVALID, `Duplicate limited_time_offer component at ${where}`);
      sent.offer = readList(component, where);
    } else {
      readPartComponent(sent, component, type, where);
    }
  });
  return sent;
}

/** A header, body or button component, of the message or of a card. */
function readPartComponent(part: SentPart, component: Record<string, unknown>, type: string, where: string): void {
  if (type === 'header' || type === 'body') {
    if (part[type] !== undefined) throw new GraphRejection(INVALID, `Duplicate ${type} component at ${where}`);
    part[type] = readList(component, where);
    return;
  }
  if (type !== 'button') throw new GraphRejection(INVALID, `Parameter ${where}.type has an invalid value: ${type}`);
  rejectUnknownKeys(component, BUTTON_KEYS, where);
  const button = readButton(component, where);
  if (button.index !== undefined && part.buttons.some((b) => b.index === button.index)) {
    throw new GraphRejection(INVALID, `Duplicate button component for index ${button.index} at ${where}`);
  }
  part.buttons.push(button);
}

function readList(component: Record<string, unknown>, where: string): SentList {
  rejectUnknownKeys(component, LIST_KEYS, where);
  const parameters = component['parameters'];
  if (parameters === undefined) throw GraphRejection.missing(`${where}.parameters`);
  if (!Array.isArray(parameters)) throw new GraphRejection(INVALID, `Parameter ${where}.parameters must be an array`);
  return { where, parameters: parameters as unknown[] };
}

function readButton(component: Record<string, unknown>, where: string): SentButton {
  const given = requireString(component, 'sub_type', where);
  const subType = given.toLowerCase() === 'catalog' ? 'catalog' : given;
  if (!SUB_TYPES.has(subType)) throw new GraphRejection(INVALID, `Parameter ${where}.sub_type has an invalid value: ${given}`);
  const rawIndex = component['index'];
  // Meta's voice-call example ("a simplified sample") sends no index: the template's voice-call button is meant.
  const index = rawIndex === undefined && subType === 'voice_call' ? undefined : buttonIndex(rawIndex, where);
  const parameters = component['parameters'];
  if (parameters !== undefined && !Array.isArray(parameters)) {
    throw new GraphRejection(INVALID, `Parameter ${where}.parameters must be an array`);
  }
  return { where, index, subType, parameters: parameters as unknown[] | undefined };
}

/**
 * A button's `index`, 0 to 9: Meta's send examples write it as an integer (coupon, limited-time
 * offer, catalog, multi-product) and as a string (authentication, Flow, the media-card
 * carousel's example); its OpenAPI types it as a string (`ButtonComponent.index`, `^[0-9]$`).
 * Meta takes both, so the sandbox does.
 */
export function buttonIndex(value: unknown, where: string): number {
  if (value === undefined) throw GraphRejection.missing(`${where}.index`);
  if (typeof value === 'number' && Number.isInteger(value) && value >= 0 && value <= 9) return value;
  if (typeof value === 'string' && /^[0-9]$/.test(value)) return Number(value);
  throw new GraphRejection(INVALID, `Parameter ${where}.index must be 0 to 9, as an integer or a string ("0")`);
}

/**
 * A carousel's cards (media-card-carousel-templates, product-card-carousel-template-messages):
 * each `{card_index, components}`, `card_index` an integer as in every example of Meta's.
 */
function readCards(value: unknown, where: string): SentCard[] {
  if (value === undefined) throw GraphRejection.missing(where);
  if (!Array.isArray(value)) throw new GraphRejection(INVALID, `Parameter ${where} must be an array`);
  const cards = (value as unknown[]).map((raw, position): SentCard => {
    const at = `${where}[${position}]`;
    const card = requireObject(raw, at);
    rejectUnknownKeys(card, CARD_KEYS, at);
    const index = card['card_index'];
    if (index === undefined) throw GraphRejection.missing(`${at}.card_index`);
    if (typeof index !== 'number' || !Number.isInteger(index) || index < 0) {
      throw new GraphRejection(INVALID, `Parameter ${at}.card_index must be a non-negative integer`);
    }
    const components = card['components'];
    if (components === undefined) throw GraphRejection.missing(`${at}.components`);
    if (!Array.isArray(components)) throw new GraphRejection(INVALID, `Parameter ${at}.components must be an array`);
    const part: SentPart = { buttons: [] };
    (components as unknown[]).forEach((c, i) => {
      const inner = `${at}.components[${i}]`;
      const component = requireObject(c, inner);
      readPartComponent(part, component, requireString(component, 'type', inner), inner);
    });
    return { where: at, index, part };
  });
  const seen = new Set<number>();
  for (const card of cards) {
    if (seen.has(card.index)) throw new GraphRejection(INVALID, `Duplicate card_index ${card.index} at ${card.where}`);
    seen.add(card.index);
  }
  return cards;
}
