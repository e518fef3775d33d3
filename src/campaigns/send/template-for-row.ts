import type { ButtonValue, CardValue, HeaderParameter, TemplateMessage, TextParameter } from '../../cloud-api/outbound-message.js';
import { parseProductSections } from '../product-sections.js';
import type { SendPlan, Slot } from '../send-plan.js';
import { checkSlotValue } from '../slot-value.js';

/** The message's own components, or one card's. */
interface Parts {
  header?: HeaderParameter;
  body: TextParameter[];
  buttons: Map<number, ButtonValue>;
}

type FilledParts = Omit<TemplateMessage, 'kind' | 'to' | 'name' | 'language'>;

/** `headerFilename`: the file name of the message's document header, whose link is the row's own. */
export type Filled = { ok: true; message: FilledParts; headerFilename?: string } | { ok: false; detail: string };

/**
 * The components of one row's send from the plan's slots and the row's values (in slot order,
 * each checked again by its kind's rule): what the producer checked is what is sent, and
 * nothing a slot's rule refuses reaches Meta.
 */
export function fillSlots(plan: SendPlan, values: readonly string[], now: number): Filled {
  const own: Parts = { body: [], buttons: new Map() };
  const cards = new Map<number, Parts>();
  const extras = new Map<string, string>();
  let offerExpiresAtMs: number | undefined;
  for (const [i, slot] of plan.slots.entries()) {
    if (slot.kind === 'language') continue; // which plan this is: the caller chose it by this value
    const verdict = checkSlotValue(slot.kind, values[i] ?? '', slot.column, { now }, slot.maxLength);
    if (!verdict.ok) return { ok: false, detail: `${slot.name}: ${verdict.detail}` };
    const value = verdict.value;
    const parts = slot.card === undefined ? own : partsOf(cards, slot.card);
    if (slot.kind === 'expiration') offerExpiresAtMs = Number(value);
    else if (!place(parts, slot, value, plan.parameterFormat === 'NAMED')) extras.set(slotKey(slot), value);
  }
  const detail = attachExtras(own, cards, extras, plan);
  if (detail !== undefined) return { ok: false, detail };
  const filename = extras.get(`|header.document.filename`);
  const message: Filled & { ok: true } = {
    ok: true,
    message: { body: own.body },
    ...(filename === undefined ? {} : { headerFilename: filename }),
  };
  if (own.header !== undefined) message.message.header = own.header;
  if (own.buttons.size > 0) message.message.buttons = sorted(own.buttons);
  if (offerExpiresAtMs !== undefined) message.message.offerExpiresAtMs = offerExpiresAtMs;
  if (cards.size > 0) {
    message.message.cards = [...cards]
      .sort(([a], [b]) => a - b)
      .map(([index, parts]): CardValue => ({
        index,
        ...(parts.header === undefined ? {} : { header: parts.header }),
        body: parts.body,
        buttons: sorted(parts.buttons),
      }));
  }
  return message;
}

/** Puts a value that makes a parameter on its own; false for a part of another (a place's name, a Flow's data…). */
function place(parts: Parts, slot: Slot, value: string, named: boolean): boolean {
  const text: TextParameter = named && slot.variable !== undefined ? { text: value, name: slot.variable } : { text: value };
  const index = slot.buttonIndex ?? 0;
  switch (slot.kind) {
    case 'text':
      if (slot.component === 'body') parts.body.push(text);
      else if (slot.component === 'header') parts.header = { type: 'text', ...text };
      // An authentication code's second place: the OTP button, sent as a URL button (its variable is the code).
      else parts.buttons.set(index, { subType: 'url', index, text: value });
      return true;
    case 'url':
      parts.buttons.set(index, { subType: 'url', index, ...text });
      return true;
    case 'media':
      parts.header = { type: slot.media ?? 'image', link: value };
      return true;
    case 'location': {
      const [latitude = '', longitude = ''] = value.split(',');
      parts.header = { type: 'location', latitude, longitude };
      return true;
    }
    case 'product':
      parts.header = { type: 'product', productRetailerId: value };
      return true;
    case 'payload':
      parts.buttons.set(index, { subType: 'quick_reply', index, payload: value });
      return true;
    case 'coupon_code':
      parts.buttons.set(index, { subType: 'copy_code', index, couponCode: value });
      return true;
    default:
      return false;
  }
}

/** Where a partial value goes: the card (or none) and the slot's name without the card. */
function slotKey(slot: Slot): string {
  return `${slot.card ?? ''}|${slot.card === undefined ? slot.name : slot.name.replace(/^card\.\d+\./, '')}`;
}

/** Adds the values that complete another parameter: a place's name and address, a document's name, a Flow's, a catalog's. */
function attachExtras(own: Parts, cards: Map<number, Parts>, extras: Map<string, string>, plan: SendPlan): string | undefined {
  const get = (card: number | undefined, name: string) => extras.get(`${card ?? ''}|${name}`);
  const catalogId = get(undefined, 'catalog_id');
  for (const [card, parts] of [[undefined, own] as const, ...cards]) {
    const header = parts.header;
    if (header?.type === 'location') {
      const name = get(card, 'header.location.name');
      const address = get(card, 'header.location.address');
      if (name !== undefined) header.name = name;
      if (address !== undefined) header.address = address;
    }
    if (header?.type === 'product') {
      // Meta requires the catalog beside every product (catalogs/spm-template-messages).
      if (catalogId === undefined) return 'a product header needs catalog_id';
      header.catalogId = catalogId;
    }
  }
  for (const slot of plan.slots.filter((s) => s.component === 'button' && s.card === undefined)) {
    const index = slot.buttonIndex ?? 0;
    if (own.buttons.has(index)) continue;
    const at = `button.${index}`;
    if (slot.subType === 'flow') {
      const token = get(undefined, `${at}.flow_token`);
      const data = get(undefined, `${at}.flow_action_data`);
      own.buttons.set(index, {
        subType: 'flow',
        index,
        ...(token === undefined ? {} : { flowToken: token }),
        ...(data === undefined ? {} : { flowActionData: JSON.parse(data) as Record<string, unknown> }),
      });
    } else if (slot.subType === 'catalog') {
      const thumbnail = get(undefined, `${at}.thumbnail`);
      own.buttons.set(index, { subType: 'catalog', index, ...(thumbnail === undefined ? {} : { thumbnailProductRetailerId: thumbnail }) });
    } else if (slot.subType === 'mpm') {
      const sections = parseProductSections(get(undefined, `${at}.sections`) ?? '');
      const thumbnail = get(undefined, `${at}.thumbnail`);
      if ('problem' in sections || thumbnail === undefined) return `${at}: a multi-product button needs its thumbnail and its products`;
      own.buttons.set(index, { subType: 'mpm', index, thumbnailProductRetailerId: thumbnail, sections: sections.sections });
    }
  }
  return undefined;
}

function partsOf(cards: Map<number, Parts>, card: number): Parts {
  let parts = cards.get(card);
  if (parts === undefined) {
    parts = { body: [], buttons: new Map() };
    cards.set(card, parts);
  }
  return parts;
}

function sorted(buttons: Map<number, ButtonValue>): ButtonValue[] {
  return [...buttons.values()].sort((a, b) => a.index - b.index);
}
