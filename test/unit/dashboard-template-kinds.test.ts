import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { templateView } from '../../src/app/views/template-view.js';
import { renderTemplate } from '../../src/dashboard/browser/message-preview.js';
import { countdownText, expiryOf } from '../../src/dashboard/browser/offer-expiry.js';
import { specOf } from '../../src/dashboard/browser/posted-spec.js';
import { filledFromOthers, slotsOf, suggestMapping, type Mapping } from '../../src/dashboard/browser/slot-choices.js';
import { templateModel, type TemplateModel } from '../../src/dashboard/browser/template-model.js';
import { webUrl } from '../../src/dashboard/browser/web-url.js';
import { NEW_CAMPAIGN_HEADERS } from '../../src/dashboard/new-campaign-page.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';

/**
 * The New campaign page's model of each kind of template: its slots as the service names them,
 * the columns suggested and posted (`param`), and the preview of one row.
 */
async function samples(): Promise<MessageTemplate[]> {
  return (JSON.parse(await readFile(SAMPLE_TEMPLATES, 'utf8')) as { data: MessageTemplate[] }).data;
}

async function sample(name: string): Promise<MessageTemplate> {
  const found = (await samples()).find((t) => t.name === name);
  if (found === undefined) throw new Error(`no sample template ${name}`);
  return found;
}

/** A row of a file whose header is the mapping's columns, with these cells. */
function render(model: TemplateModel, cells: Record<string, string>) {
  const mapping: Mapping = Object.fromEntries(Object.keys(cells).map((slot) => [slot, `col ${slot}`]));
  const header = Object.keys(cells).map((slot) => `col ${slot}`);
  return renderTemplate(model, mapping, header, Object.values(cells));
}

describe('the New campaign page: the slots of each kind', () => {
  it("reads the same model from Meta's shape and from the API's view, for every sample template", async () => {
    for (const template of await samples()) {
      const fromMeta = templateModel(template);
      expect(templateModel(templateView(template)), template.name).toEqual(fromMeta);
    }
  });

  it('maps every slot but those filled from another, which are shown as such', async () => {
    const model = templateModel(await sample('verification_code'));
    expect(model.kind).toBe('authentication');
    expect(slotsOf(model).map((s) => s.name)).toEqual(['body.1']);
    expect(filledFromOthers(model).map((s) => [s.name, s.sameAs])).toEqual([['button.0.code', 'body.1']]);
    expect(specOf({ kind: 'template', model, mapping: { 'body.1': 'otp' }, phoneColumn: 'phone' }).param).toEqual({ 'body.1': 'otp' });
  });

  it("suggests by the slot's name, a named variable, or a required value's kind; never a card's by a shared word", async () => {
    const coupon = templateModel(await sample('coupon_offer'));
    expect(suggestMapping(coupon, ['phone', 'Coupon Code', 'discount', 'payload'])).toEqual({
      'body.coupon_code': 'Coupon Code',
      'body.discount': 'discount',
      // Optional: suggested only by its own name, so a send carries it only when the operator says so.
      'button.0.payload': null,
      'button.1.coupon_code': 'Coupon Code',
    });
    const offer = templateModel(await sample('spring_offer_expiring'));
    expect(suggestMapping(offer, ['Expiration', 'image', 'coupon_code'])).toMatchObject({
      'header.image': 'image',
      'lto.expiration': 'Expiration',
      'button.0.coupon_code': 'coupon_code',
    });
    const carousel = templateModel(await sample('carousel_products_media'));
    const suggested = suggestMapping(carousel, ['video', 'card.1.header.video', 'card_2_body_1']);
    expect(suggested['card.0.header.video']).toBeNull();
    expect(suggested['card.1.header.video']).toBe('card.1.header.video');
    expect(suggested['card.2.body.1']).toBe('card_2_body_1');
  });
});

describe('the New campaign page: the preview of each kind', () => {
  it("a media carousel: the message's body, then each card with its video link, body and buttons", async () => {
    const model = templateModel(await sample('carousel_products_media'));
    expect(model.kind).toBe('media_carousel');
    const cells: Record<string, string> = { 'body.1': 'Ana' };
    for (const card of [0, 1, 2]) {
      cells[`card.${card}.header.video`] = `https://cdn.example/${card}.mp4`;
      cells[`card.${card}.body.1`] = `Item ${card}`;
      cells[`card.${card}.body.2`] = `£${card}0`;
    }
    const rendered = render(model, cells);
    expect(rendered.body).toBe('Hi Ana, three new arrivals picked for you.');
    expect(rendered.cards).toEqual(
      [0, 1, 2].map((index) => ({
        index,
        header: { kind: 'media', format: 'VIDEO', url: `https://cdn.example/${index}.mp4`, filename: '' },
        body: `Item ${index}, now £${index}0.`,
        buttons: [
          { type: 'QUICK_REPLY', text: 'More like this' },
          { type: 'URL', text: 'Buy' },
        ],
      })),
    );
    // Posted as param, card slots by their names.
    const mapping = Object.fromEntries(Object.keys(cells).map((slot) => [slot, `col ${slot}`]));
    const spec = specOf({ kind: 'template', model, mapping, phoneColumn: 'phone' });
    expect(Object.keys(spec.param ?? {})).toHaveLength(10);
    expect(spec.param?.['card.2.header.video']).toBe('col card.2.header.video');
    // A card slot without a column shows as itself.
    expect(render(model, { 'body.1': 'Ana' }).cards[1]?.body).toBe('{{1}}, now {{2}}.');
  });

  it('a coupon code: the code on its copy-code button; unmapped, the slot it waits for', async () => {
    const model = templateModel(await sample('coupon_offer'));
    const rendered = render(model, { 'body.coupon_code': 'WINTER25', 'body.discount': '30%', 'button.1.coupon_code': 'WINTER25' });
    expect(rendered.body).toBe('Shop now through the end of the month and use code WINTER25 to get 30% off all merchandise!');
    expect(rendered.buttons).toEqual([
      { type: 'QUICK_REPLY', text: 'Unsubscribe' },
      { type: 'COPY_CODE', text: 'Copy offer code', code: 'WINTER25' },
    ]);
    expect(render(model, {}).buttons[1]?.code).toBe('{{button.1.coupon_code}}');
  });

  it("a limited-time offer: its heading and the row's end, as ISO time or epoch milliseconds", async () => {
    const model = templateModel(await sample('spring_offer_expiring'));
    const iso = render(model, { 'lto.expiration': '2030-01-02T03:04:05+01:00', 'button.0.coupon_code': 'SPRING25' });
    expect(iso.offer).toEqual({
      text: 'Expiring offer!',
      countdown: true,
      expiry: '2030-01-02T03:04:05+01:00',
      expiresAt: Date.UTC(2030, 0, 2, 2, 4, 5),
    });
    expect(iso.buttons[0]).toEqual({ type: 'COPY_CODE', text: 'Copy offer code', code: 'SPRING25' });
    expect(render(model, { 'lto.expiration': '1893456000000' }).offer?.expiresAt).toBe(1_893_456_000_000);
    expect(render(model, { 'lto.expiration': 'next friday' }).offer?.expiresAt).toBeNull();
    expect(render(model, {}).offer).toEqual({ text: 'Expiring offer!', countdown: true, expiry: '', expiresAt: null });
  });

  it('a countdown: days, then hours, minutes and seconds; over once the end has passed', () => {
    expect(countdownText(90_061_000, 0)).toBe('Ends in 1d 01:01:01');
    expect(countdownText(599_000, 0)).toBe('Ends in 00:09:59');
    expect(countdownText(1000, 1000)).toBe('Offer ended');
    expect(expiryOf('2030-01-02T03:04:05Z')).toBe(Date.UTC(2030, 0, 2, 3, 4, 5));
    expect(expiryOf('2030-01-02T03:04:05+0100')).toBe(Date.UTC(2030, 0, 2, 2, 4, 5));
    // Without an offset the time would be the browser's guess: not a time, as the service says.
    expect(expiryOf('2030-01-02T03:04:05')).toBeNull();
    expect(expiryOf('12345')).toBeNull();
  });

  it('a location header: its place, name and address', async () => {
    const model = templateModel(await sample('store_location'));
    const rendered = render(model, {
      'header.location': '52.52,13.405',
      'header.location.name': 'Mitte',
      'header.location.address': 'Unter den Linden 1',
    });
    expect(rendered.header).toEqual({ kind: 'location', place: '52.52,13.405', name: 'Mitte', address: 'Unter den Linden 1' });
  });

  it('products: a single product with its catalog, a catalog, a multi-product message, a product carousel', async () => {
    const spm = render(templateModel(await sample('spm_single_product')), { 'header.product': 'sku-1', catalog_id: 'cat-9' });
    expect(spm.header).toEqual({ kind: 'product', product: 'sku-1', catalog: 'cat-9' });
    const catalog = render(templateModel(await sample('catalog_intro')), {});
    expect(catalog.products).toEqual({ kind: 'catalog', thumbnail: '', sections: '' });
    const mpm = render(templateModel(await sample('mpm_abandoned_cart')), {
      'button.0.thumbnail': 'sku-2',
      'button.0.sections': 'Cart: sku-2, sku-3',
    });
    expect(mpm.products).toEqual({ kind: 'multi_product', thumbnail: 'sku-2', sections: 'Cart: sku-2, sku-3' });
    const cards = render(templateModel(await sample('product_card_carousel')), { 'card.1.header.product': 'sku-4', catalog_id: 'cat-9' });
    expect(cards.cards.map((c) => c.header)).toEqual([
      { kind: 'product', product: '', catalog: 'cat-9' },
      { kind: 'product', product: 'sku-4', catalog: 'cat-9' },
    ]);
  });
});

describe("the New campaign page: what a file's cell may become", () => {
  it('a media link is a src only when it is http(s)', () => {
    expect(webUrl(' https://cdn.example/a.jpg ')).toBe('https://cdn.example/a.jpg');
    expect(webUrl('http://127.0.0.1:8080/a.jpg')).toBe('http://127.0.0.1:8080/a.jpg');
    for (const bad of ['javascript:alert(1)', 'data:image/png;base64,AAAA', '/relative.jpg', 'file:///etc/passwd', '']) {
      expect(webUrl(bad), bad).toBeNull();
    }
  });

  it("the page's headers allow images and videos from http(s) links, and nothing else more than the other pages", () => {
    const csp = NEW_CAMPAIGN_HEADERS['content-security-policy'] ?? '';
    expect(csp).toContain("img-src 'self' https: http:;");
    expect(csp).toContain('media-src https: http:;');
    expect(csp).toContain("script-src 'self';");
    expect(csp).toContain("connect-src 'self';");
  });
});
