import { describe, it } from 'vitest';
import { expectMissingField } from './sandbox-fixtures.js';
import { body, button, check, expectAccepted, expectMetaError, header, image, product, text, video } from './sandbox-kinds-support.js';

/**
 * Carousels: media cards (templates/marketing-templates/media-card-carousel-templates), sent with
 * exactly the template's cards, and product cards (catalogs/product-card-carousel-template-
 * messages), created with two and sent with 2 to 10. Meta's examples are taken as printed.
 */
const carousel = (...cards: unknown[]) => ({ type: 'carousel', cards });
const card = (cardIndex: unknown, ...components: unknown[]) => ({ card_index: cardIndex, components });

/** Meta's media-card example's first two cards, as printed (string indexes, image IDs). */
const aloes = card(
  0,
  header(image({ id: '1558081531584829' })),
  button('quick_reply', '0', { type: 'payload', payload: 'more-aloes' }),
  button('url', '1', text('blue-elf')),
);
const crassulas = card(
  1,
  header(image({ id: '861236878885705' })),
  button('quick_reply', '0', { type: 'payload', payload: 'more-crassulas' }),
  button('url', '1', text('buddhas-temple')),
);
const succulentsBody = body(text('Pablo'), text('20%'), text('20OFF'));

/** carousel_products_media: three video cards, each with a body of two variables and a URL variable. */
const arrival = (cardIndex: number, ...extra: unknown[]) =>
  card(
    cardIndex,
    header(video({ link: `https://x.example/${cardIndex}.mp4` })),
    body(text('Linen shirt'), text('£35')),
    button('quick_reply', 0, { type: 'payload', payload: `more-${cardIndex}` }),
    button('url', 1, text(`item-${cardIndex}`)),
    ...extra,
  );
const arrivals = (...cards: unknown[]) => check('carousel_products_media', [body(text('Ana')), carousel(...cards)]);

describe('media-card carousel', () => {
  it("takes Meta's example (string indexes), its syntax (integer indexes, card bodies) and cards in any order", () => {
    expectAccepted(check('spring_collection_carousel', [succulentsBody, carousel(aloes, crassulas)]));
    expectAccepted(check('spring_collection_carousel', [succulentsBody, carousel(crassulas, aloes)]));
    expectAccepted(arrivals(arrival(0), arrival(1), arrival(2)));
  });

  it('takes a card without its quick-reply payload ("Optional") but refuses one without its URL variable (131008)', () => {
    const noPayload = card(0, header(image({ id: '1' })), button('url', 1, text('blue-elf')));
    expectAccepted(check('spring_collection_carousel', [succulentsBody, carousel(noPayload, crassulas)]));
    const noUrl = card(1, header(image({ id: '2' })), button('quick_reply', 0, { type: 'payload', payload: 'p' }));
    expectMetaError(
      check('spring_collection_carousel', [succulentsBody, carousel(aloes, noUrl)]),
      131008,
      'card 1 buttons: Button at index 1 of type Url requires a parameter',
    );
  });

  it('refuses a send without the carousel (131008), and one on a template without a carousel (132000)', () => {
    expectMetaError(
      check('spring_collection_carousel', [succulentsBody]),
      131008,
      'carousel: the template has 2 cards; the send has no carousel component filling them',
    );
    expectMetaError(check('order_update', [body(text('a'), text('b')), carousel(aloes)]), 132000, 'carousel: template has no carousel');
  });

  it("refuses another number of cards than the template's (132000), a repeated, missing or out-of-range card_index", () => {
    expectMetaError(check('spring_collection_carousel', [succulentsBody, carousel(aloes)]), 132000, 'carousel: expected 2 cards, got 1');
    expectMetaError(arrivals(arrival(0), arrival(1), arrival(2), arrival(3)), 132000, 'carousel: expected 3 cards, got 4');
    expectMetaError(arrivals(arrival(0), arrival(0), arrival(2)), 100, /Duplicate card_index 0/);
    expectMetaError(
      arrivals(arrival(0), arrival(1), arrival(3)),
      132000,
      'carousel: card_index 3 names no card; the send has cards 0 to 2',
    );
    expectMetaError(arrivals(arrival(0), arrival(1), { ...arrival(2), card_index: '2' }), 100, /card_index must be a non-negative integer/);
    const noIndex: Record<string, unknown> = { ...arrival(2) };
    delete noIndex['card_index'];
    expectMissingField(arrivals(arrival(0), arrival(1), noIndex), 'template.components[1].cards[2].card_index');
  });

  it("refuses a card without its header or with another format's (132012)", () => {
    const bare = card(1, button('url', 1, text('x')));
    expectMetaError(
      check('spring_collection_carousel', [succulentsBody, carousel(aloes, bare)]),
      132012,
      'card 1 header: Format mismatch, expected IMAGE, received UNKNOWN',
    );
    const videoCard = card(1, header(video({ id: '3' })), button('url', 1, text('x')));
    expectMetaError(
      check('spring_collection_carousel', [succulentsBody, carousel(aloes, videoCard)]),
      132012,
      'card 1 header: Format mismatch, expected IMAGE, received VIDEO',
    );
  });

  it("checks each card's body: its variables (132000) and 160 characters rendered (132005)", () => {
    const noBody = card(2, header(video({ id: '4' })), button('url', 1, text('x')));
    expectMetaError(arrivals(arrival(0), arrival(1), noBody), 132000, 'card 2 body: expected 2 parameters, got 0');
    const body160 = card(2, header(video({ id: '4' })), body(text('x'.repeat(150)), text('£35')), button('url', 1, text('x')));
    expectAccepted(arrivals(arrival(0), arrival(1), body160));
    const long = card(2, header(video({ id: '4' })), body(text('x'.repeat(151)), text('£35')), button('url', 1, text('x')));
    expectMetaError(
      arrivals(arrival(0), arrival(1), long),
      132005,
      'card 2 body: text after parameter substitution is 161 characters; the limit is 160',
    );
  });
});

describe('product-card carousel', () => {
  const products = (...ids: string[]) => carousel(...ids.map((id, i) => card(i, header(product(id)))));
  const send = (cards: unknown) => check('product_card_carousel', [body(text('Pablo')), cards]);

  it("takes Meta's example (three product cards for a template created with two) and up to 10 cards", () => {
    expectAccepted(send(products('vrpj01fvwp', 'va2l5ioeat', 'sqpjv0mgde')));
    expectAccepted(send(products(...Array.from({ length: 10 }, (_, i) => `sku-${i}`))));
  });

  it('refuses fewer than 2 or more than 10 cards (132000)', () => {
    expectMetaError(send(products('a')), 132000, 'carousel: a product-card carousel sends 2 to 10 cards, got 1');
    expectMetaError(send(products(...Array.from({ length: 11 }, (_, i) => `sku-${i}`))), 132000, /got 11/);
  });

  it('refuses a product without its catalog_id, an image header (132012), and a component for the View button (132000)', () => {
    const noCatalog = card(1, header({ type: 'product', product: { product_retailer_id: 'b' } }));
    expectMissingField(send(carousel(card(0, header(product('a'))), noCatalog)), 'card 1 header.parameters[0].product.catalog_id');
    expectMetaError(
      send(carousel(card(0, header(product('a'))), card(1, header(image({ id: '1' }))))),
      132012,
      'card 1 header: Format mismatch, expected PRODUCT, received IMAGE',
    );
    expectMetaError(
      send(carousel(card(0, header(product('a'))), card(1, header(product('b')), button('spm', 0, { type: 'payload', payload: 'x' })))),
      132000,
      'card 1 buttons: Button at index 0 of type Spm takes no parameters',
    );
  });
});
