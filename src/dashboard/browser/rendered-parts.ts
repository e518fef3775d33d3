import { renderPlaceholders } from '../../templates/template-requirements.js';
import { expiryOf } from './offer-expiry.js';
import type { ModelButton, ModelHeader, ModelText, TemplateModel } from './template-model.js';

export type RenderedHeader =
  | { kind: 'text'; text: string }
  | { kind: 'media'; format: string; url: string; filename: string }
  | { kind: 'location'; place: string; name: string; address: string }
  | { kind: 'product'; product: string; catalog: string };

export interface RenderedButton {
  type: string;
  text: string;
  /** A copy-code button's coupon code. */
  code?: string;
}

export interface RenderedCard {
  index: number;
  header: RenderedHeader | null;
  body: string;
  buttons: RenderedButton[];
}

export interface RenderedOffer {
  text: string;
  countdown: boolean;
  /** The cell as written, and when it ends (epoch ms); null when the cell is not a time. */
  expiry: string;
  expiresAt: number | null;
}

/** A catalog or multi-product message's products, which WhatsApp draws from the business's catalog. */
export interface RenderedProducts {
  kind: 'catalog' | 'multi_product';
  thumbnail: string;
  sections: string;
}

/** A slot's value in one row: the cell of its column; undefined while no column of the file is chosen for it. */
export type SlotValue = (slot: string) => string | undefined;

/** A slot with no column yet shows as its name in braces: what is still to choose, not an empty gap. */
const unmapped = (slot: string): string => `{{${slot}}}`;

/** A text with its variables filled from the slots `<prefix><part>.<variable>` (`body.1`, `card.0.body.2`). */
export function fillText(text: ModelText, slotOf: (variable: string) => string, value: SlotValue): string {
  const values = new Map<string, string>();
  for (const v of text.variables) {
    const found = value(slotOf(v));
    if (found !== undefined) values.set(v, found);
  }
  return renderPlaceholders(text.text, values);
}

/** The message's header or a card's (`prefix` `card.0.`), with what its slots hold. */
export function renderHeader(header: ModelHeader, prefix: string, value: SlotValue): RenderedHeader | null {
  switch (header.kind) {
    case 'none':
      return null;
    case 'text':
      return { kind: 'text', text: fillText(header, (v) => `${prefix}header.${v}`, value) };
    case 'media': {
      const media = header.format.toLowerCase();
      return {
        kind: 'media',
        format: header.format,
        url: value(`${prefix}header.${media}`) ?? '',
        filename: value(`${prefix}header.document.filename`) ?? '',
      };
    }
    case 'location':
      return {
        kind: 'location',
        place: value('header.location') ?? '',
        name: value('header.location.name') ?? '',
        address: value('header.location.address') ?? '',
      };
    case 'product':
      return { kind: 'product', product: value(`${prefix}header.product`) ?? '', catalog: value('catalog_id') ?? '' };
  }
}

export function renderButtons(buttons: readonly ModelButton[], prefix: string, value: SlotValue): RenderedButton[] {
  return buttons.map((b) => {
    if (b.type !== 'COPY_CODE') return { type: b.type, text: b.text };
    const slot = `${prefix}button.${b.index}.coupon_code`;
    return { type: b.type, text: b.text, code: value(slot) ?? unmapped(slot) };
  });
}

/** A limited-time offer: its heading, and the end its `lto.expiration` cell gives. */
export function renderOffer(model: TemplateModel, value: SlotValue): RenderedOffer | null {
  if (model.offer === null) return null;
  const expiry = model.offer.countdown ? (value('lto.expiration') ?? '') : '';
  return { text: model.offer.text, countdown: model.offer.countdown, expiry, expiresAt: expiry === '' ? null : expiryOf(expiry) };
}

/** The products of a catalog (CATALOG) or multi-product (MPM) button; null for a message with neither. */
export function renderProducts(model: TemplateModel, value: SlotValue): RenderedProducts | null {
  const button = model.buttons.find((b) => b.type === 'CATALOG' || b.type === 'MPM');
  if (button === undefined) return null;
  const at = `button.${button.index}`;
  return {
    kind: button.type === 'MPM' ? 'multi_product' : 'catalog',
    thumbnail: value(`${at}.thumbnail`) ?? '',
    sections: button.type === 'MPM' ? (value(`${at}.sections`) ?? '') : '',
  };
}

/** Each card of a carousel with its own slots (`card.<index>.…`). */
export function renderCards(model: TemplateModel, value: SlotValue): RenderedCard[] {
  return model.cards.map((card) => {
    const prefix = `card.${card.index}.`;
    return {
      index: card.index,
      header: renderHeader(card.header, prefix, value),
      body: fillText(card.body, (v) => `${prefix}body.${v}`, value),
      buttons: renderButtons(card.buttons, prefix, value),
    };
  });
}
