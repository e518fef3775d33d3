import { GraphRejection } from '../graph-error.js';
import { checkPart, type PartContext } from './part-check.js';
import type { SentTemplate } from './sent-components.js';
import type { TemplateShape } from './template-shape.js';

/**
 * A carousel's cards. A media-card carousel (templates/marketing-templates/media-card-carousel-
 * templates) is sent with exactly its template's cards: "An approved template can only be used to
 * send the same number of cards as defined during its creation"; each card its header media (of
 * the card's format), body variables (the card's body at most 160 characters rendered) and
 * buttons (URL variables required, a quick-reply payload "Optional"). A product-card carousel
 * (catalogs/product-card-carousel-template-messages) is created with two cards and "can be used to
 * send up to 10 cards", all alike, each a product header. Every `card_index` from 0 once.
 */
export const MAX_CARD_BODY = 160;
export const MIN_PRODUCT_CARDS = 2;
export const MAX_PRODUCT_CARDS = 10;

export function checkCarousel(
  shape: TemplateShape['carousel'],
  sent: SentTemplate['carousel'],
  context: Omit<PartContext, 'prefix' | 'bodyLimit'>,
): void {
  if (shape === undefined) {
    if (sent !== undefined) throw new GraphRejection(132000, 'carousel: template has no carousel');
    return;
  }
  if (sent === undefined) {
    throw new GraphRejection(
      131008,
      `carousel: the template has ${shape.cards.length} cards; the send has no carousel component filling them`,
    );
  }
  const count = sent.cards.length;
  if (shape.products && (count < MIN_PRODUCT_CARDS || count > MAX_PRODUCT_CARDS)) {
    throw new GraphRejection(
      132000,
      `carousel: a product-card carousel sends ${MIN_PRODUCT_CARDS} to ${MAX_PRODUCT_CARDS} cards, got ${count}`,
    );
  }
  if (!shape.products && count !== shape.cards.length) {
    throw new GraphRejection(132000, `carousel: expected ${shape.cards.length} cards, got ${count}`);
  }
  for (const card of sent.cards) {
    // Indexes are distinct (sent-components.ts): all below the count means each appears once.
    if (card.index >= count) {
      throw new GraphRejection(132000, `carousel: card_index ${card.index} names no card; the send has cards 0 to ${count - 1}`);
    }
    const cardShape = shape.cards[card.index] ?? shape.cards[0];
    if (cardShape === undefined) continue;
    checkPart(cardShape, card.part, { ...context, prefix: `card ${card.index} `, bodyLimit: MAX_CARD_BODY });
  }
}
