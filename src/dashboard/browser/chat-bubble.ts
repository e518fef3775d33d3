import { buttonsPart, carouselPart, headerPart, offerPart, productsPart } from './bubble-parts.js';
import { el } from './dom.js';
import type { RenderedMessage } from './message-preview.js';

/**
 * One message as a WhatsApp chat bubble: header (or a catalog's products), a limited-time
 * offer, body, footer, then its buttons under it and a carousel's cards under those; `meta`
 * says which row, `now` is when its countdown starts from.
 */
export function bubble(message: RenderedMessage, meta: { number: number; phone: string }, now = Date.now()): HTMLElement {
  const carousel = message.cards.length > 0;
  return el('div', { class: carousel ? 'bubble-wrap bubble-wrap-carousel' : 'bubble-wrap', 'data-row': meta.number }, [
    el('div', { class: 'bubble-meta' }, [`row ${meta.number} · ${meta.phone}`]),
    el('div', { class: 'bubble' }, [
      productsPart(message.products),
      headerPart(message.header),
      offerPart(message.offer, now),
      el('div', { class: 'bubble-body' }, [message.body]),
      message.footer ? el('div', { class: 'bubble-footer' }, [message.footer]) : null,
    ]),
    buttonsPart(message.buttons),
    carouselPart(message.cards),
  ]);
}
