import { el } from './dom.js';
import { countdownText } from './offer-expiry.js';
import type { RenderedButton, RenderedCard, RenderedHeader, RenderedOffer, RenderedProducts } from './rendered-parts.js';
import { webUrl } from './web-url.js';

/*
 * The parts of a chat bubble, each kind as WhatsApp draws it. Every value from the file is text
 * (el's strings become text nodes) or, for a media link, a `src` only when it is an http(s) URL.
 */

/** A grey box saying what WhatsApp would show there: media without a usable link, a document, a product. */
function placeholder(kind: string, lines: readonly string[]): HTMLElement {
  return el(
    'div',
    { class: 'bubble-media', 'data-placeholder': kind },
    lines.map((line) => el('div', {}, [line])),
  );
}

/** An image from its link, a video or GIF (Meta sends GIFs as MP4) as a still first frame; else a placeholder. */
function media(header: Extract<RenderedHeader, { kind: 'media' }>): HTMLElement {
  const format = header.format.toLowerCase();
  const url = webUrl(header.url);
  if (format === 'document') return placeholder('document', [`document: ${header.filename || header.url || '(no link)'}`]);
  if (url === null) return placeholder(format, [`${format}: ${header.url ? `not an http(s) link: ${header.url}` : '(no link)'}`]);
  if (format === 'image') return el('img', { class: 'bubble-image', src: url, alt: 'the header image', loading: 'lazy' });
  // preload: enough for the first frame, not the whole video, from a link the operator's own file gives.
  return el('video', { class: 'bubble-video', src: url, preload: 'metadata', muted: '', playsinline: '', 'data-format': format });
}

export function headerPart(header: RenderedHeader | null): HTMLElement | null {
  switch (header?.kind) {
    case undefined:
      return null;
    case 'text':
      return el('div', { class: 'bubble-header' }, [header.text]);
    case 'media':
      return media(header);
    case 'location': {
      const lines = [header.name, header.address, `location ${header.place || '(no place)'}`].filter(Boolean);
      return el(
        'div',
        { class: 'bubble-location', 'data-place': header.place },
        lines.map((line) => el('div', {}, [line])),
      );
    }
    case 'product':
      return placeholder('product', [`product ${header.product || '(none)'}`, `catalog ${header.catalog || '(none)'}`]);
  }
}

/** A limited-time offer: its heading and the countdown to the row's end (ticked by the page each second). */
export function offerPart(offer: RenderedOffer | null, now: number): HTMLElement | null {
  if (offer === null) return null;
  let countdown: HTMLElement | null = null;
  if (offer.countdown) {
    countdown =
      offer.expiresAt === null
        ? el('div', { class: 'offer-countdown' }, [offer.expiry ? `not a time: ${offer.expiry}` : '(no expiration)'])
        : el('div', { class: 'offer-countdown', 'data-expires-at': offer.expiresAt }, [countdownText(offer.expiresAt, now)]);
  }
  return el('div', { class: 'bubble-offer' }, [el('div', { class: 'offer-text' }, [offer.text]), countdown]);
}

/** A catalog or multi-product message's products: WhatsApp draws them from the catalog, so a placeholder says which. */
export function productsPart(products: RenderedProducts | null): HTMLElement | null {
  if (products === null) return null;
  const thumbnail = `thumbnail: ${products.thumbnail || '(the first product)'}`;
  if (products.kind === 'catalog') return placeholder('catalog', ['the catalog', thumbnail]);
  return placeholder('multi_product', ['products', products.sections || '(no sections)', thumbnail]);
}

function button(b: RenderedButton): HTMLElement {
  if (b.code === undefined) return el('span', { class: 'bubble-button', 'data-type': b.type }, [b.text]);
  return el('span', { class: 'bubble-button bubble-coupon', 'data-type': b.type }, [
    el('code', { class: 'coupon-code' }, [b.code]),
    el('span', { class: 'coupon-copy' }, [b.text || 'Copy code']),
  ]);
}

export function buttonsPart(buttons: readonly RenderedButton[]): HTMLElement | null {
  return buttons.length === 0 ? null : el('div', { class: 'bubble-buttons' }, buttons.map(button));
}

/** A carousel's cards side by side, scrolled sideways as WhatsApp does: each its media, body and buttons. */
export function carouselPart(cards: readonly RenderedCard[]): HTMLElement | null {
  if (cards.length === 0) return null;
  return el(
    'div',
    { class: 'carousel' },
    cards.map((card) =>
      el('div', { class: 'carousel-card', 'data-card': card.index }, [
        headerPart(card.header),
        card.body ? el('div', { class: 'card-body' }, [card.body]) : null,
        buttonsPart(card.buttons),
      ]),
    ),
  );
}
