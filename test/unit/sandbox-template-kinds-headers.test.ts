import { describe, expect, it } from 'vitest';
import { SenderMedia } from '../../src/sandbox/media-object.js';
import { expectMissingField } from './sandbox-fixtures.js';
import { body, button, check, expectAccepted, expectMetaError, header, image, text, video } from './sandbox-kinds-support.js';

/**
 * Header kinds (location, document, GIF), the limited-time offer and media sent by upload ID,
 * against the sample templates: Meta's examples are taken, what each requires is refused with
 * Meta's code when missing or malformed.
 */
const location = (value: Record<string, unknown>) => header({ type: 'location', location: value });
const storeBody = body(text('Ana'), text('A-10023'));
const PHILZ = {
  latitude: '37.44211676562361',
  longitude: '-122.16155960083124',
  name: 'Philz Coffee',
  address: '101 Forest Ave, Palo Alto, CA 94301',
};

describe('location header (templates/utility-templates/location-templates)', () => {
  it("takes Meta's example (coordinates as strings), numbers, and no name or address (both Optional)", () => {
    expectAccepted(check('store_location', [location(PHILZ), storeBody]));
    expectAccepted(check('store_location', [location({ latitude: 37.44, longitude: -122.16 }), storeBody]));
  });

  it('refuses coordinates out of range or not numbers (100), a missing one, an unknown key, and no header (132012)', () => {
    expectMetaError(
      check('store_location', [location({ ...PHILZ, latitude: '91' }), storeBody]),
      100,
      /latitude must be a number between -90 and 90/,
    );
    expectMetaError(check('store_location', [location({ ...PHILZ, longitude: 'west' }), storeBody]), 100, /longitude/);
    const noLongitude: Record<string, unknown> = { ...PHILZ };
    delete noLongitude['longitude'];
    expectMissingField(check('store_location', [location(noLongitude), storeBody]), 'header.parameters[0].location.longitude');
    expectMetaError(check('store_location', [location({ ...PHILZ, url: 'x' }), storeBody]), 100, /Unexpected key "url"/);
    expectMetaError(check('store_location', [storeBody]), 132012, 'header: Format mismatch, expected LOCATION, received UNKNOWN');
  });
});

describe('document header (templates/template-media)', () => {
  const invoiceBody = body(text('Ana'), text('INV-2041'));
  const document = (value: Record<string, unknown>) => header({ type: 'document', document: value });

  it('takes a link or an upload ID, with an optional filename', () => {
    expectAccepted(check('invoice_document', [document({ link: 'https://x.example/invoice.pdf', filename: 'invoice.pdf' }), invoiceBody]));
    expectAccepted(check('invoice_document', [document({ id: '1037543291543636' }), invoiceBody]));
  });

  it('refuses an image in its place (132012), a caption (100), and neither link nor id', () => {
    expectMetaError(
      check('invoice_document', [header(image({ link: 'https://x.example/a.jpg' })), invoiceBody]),
      132012,
      'header: Format mismatch, expected DOCUMENT, received IMAGE',
    );
    expectMetaError(check('invoice_document', [document({ link: 'https://x.example/a.pdf', caption: 'x' }), invoiceBody]), 100, /caption/);
    expectMissingField(
      check('invoice_document', [document({ filename: 'a.pdf' }), invoiceBody]),
      'header.parameters[0].document.link or header.parameters[0].document.id',
    );
  });
});

describe('GIF header (templates/components: Marketing Messages API only)', () => {
  const gifBody = body(text('Ana'), text('summer'));
  const gif = (value: Record<string, unknown>) => header({ type: 'gif', gif: value });

  it('takes a gif by link or upload ID through /marketing_messages', () => {
    expectAccepted(check('gif_promo', [gif({ link: 'https://x.example/sale.mp4' }), gifBody], { endpoint: 'marketing_messages' }));
    expectAccepted(check('gif_promo', [gif({ id: '1037543291543636' }), gifBody], { endpoint: 'marketing_messages' }));
  });

  it('refuses the template on /messages (100), and a video in a GIF header (132012)', () => {
    const details = /a template with a GIF header is sent only through the Marketing Messages API/;
    expectMetaError(check('gif_promo', [gif({ link: 'https://x.example/sale.mp4' }), gifBody]), 100, details);
    expectMetaError(check('gif_promo', [gif({ link: 'https://x.example/sale.mp4' }), gifBody], { endpoint: 'messages' }), 100, details);
    expectMetaError(
      check('gif_promo', [header(video({ link: 'https://x.example/sale.mp4' })), gifBody], { endpoint: 'marketing_messages' }),
      132012,
      'header: Format mismatch, expected GIF, received VIDEO',
    );
  });
});

describe('limited-time offer (templates/marketing-templates/limited-time-offer-templates)', () => {
  const offer = (value: unknown = { expiration_time_ms: 1209600000 }) => ({
    type: 'limited_time_offer',
    parameters: [{ type: 'limited_time_offer', limited_time_offer: value }],
  });
  const caribbean = (...extra: unknown[]) => [
    header(image({ id: '1602186516975000' })),
    body(text('Pablo'), text('CARIBE25')),
    ...extra,
    button('url', 1, text('n3mtql')),
  ];
  const coupon = (code: string) => button('copy_code', 0, { type: 'coupon_code', coupon_code: code });
  const flash = (...extra: unknown[]) => [header(video({ link: 'https://x.example/flash.mp4' })), body(text('Ana'), text('40%')), ...extra];

  it("takes Meta's example (an image by ID, the offer's expiry, the coupon at 0 and the URL at 1), and one without a copy code", () => {
    expectAccepted(check('spring_offer_expiring', caribbean(offer(), coupon('CARIBE25'))));
    expectAccepted(check('flash_sale_lto', flash(offer({ expiration_time_ms: 1_798_761_600_000 }), button('url', '0', text('ana-40')))));
  });

  it('refuses a send without the offer when it has an expiration (131008)', () => {
    expectMetaError(
      check('flash_sale_lto', flash(button('url', 0, text('x')))),
      131008,
      /limited_time_offer: the template has a limited-time offer/,
    );
  });

  it('refuses an expiry that is not an integer (100), none, two parameters (132000), an offer code over 15 characters', () => {
    for (const bad of ['1209600000', 1.5, -1]) {
      expectMetaError(
        check('spring_offer_expiring', caribbean(offer({ expiration_time_ms: bad }), coupon('C'))),
        100,
        /must be an integer/,
      );
    }
    expectMissingField(
      check('spring_offer_expiring', caribbean(offer({}), coupon('C'))),
      'limited_time_offer.parameters[0].limited_time_offer.expiration_time_ms',
    );
    const two = { type: 'limited_time_offer', parameters: [offer().parameters[0], offer().parameters[0]] };
    expectMetaError(
      check('spring_offer_expiring', caribbean(two, coupon('C'))),
      132000,
      'limited_time_offer: expected 1 parameters, got 2',
    );
    expectMetaError(check('spring_offer_expiring', caribbean(offer(), coupon('C'.repeat(16)))), 100, /16 characters; the maximum is 15/);
  });

  it('refuses an offer component for a template without an offer (132000)', () => {
    expectMetaError(
      check('order_update', [body(text('Ana'), text('A-1')), offer()]),
      132000,
      'limited_time_offer: template has no limited-time offer',
    );
  });
});

describe('media by upload ID (business-phone-numbers/media)', () => {
  const uploads = { get: (id: string) => (id === '1000000000000001' ? { phoneNumberId: 'A' } : undefined) };
  const promo = (id: string) => [header(image({ id })), body(text('Ana'), text('25%'))];

  it('takes an ID of an upload to the sending number with no later failure', () => {
    const media = new SenderMedia(uploads, 'A');
    expectAccepted(check('spring_promo', promo('1000000000000001'), { media }));
    expect(media.failure()).toBeUndefined();
  });

  it('takes an unknown ID, or one uploaded on another number, and reports it failed with 131053 later', () => {
    for (const [id, sender] of [
      ['999', 'A'],
      ['1000000000000001', 'B'],
    ] as const) {
      const media = new SenderMedia(uploads, sender);
      expectAccepted(check('spring_promo', promo(id), { media }));
      expect(media.failure()).toMatchObject({
        code: 131053,
        cause: 'unknownMedia',
        details: expect.stringContaining(`media ID ${id}`) as unknown,
      });
    }
  });
});
