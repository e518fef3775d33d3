import { describe, expect, it } from 'vitest';
import { requirementsOf } from '../../src/templates/template-requirements.js';
import { templateSlots } from '../../src/templates/slots/template-slots.js';
import type { TemplateKind } from '../../src/templates/slots/template-slot.js';
import { messageTemplateSchema, type MessageTemplate } from '../../src/templates/template-schema.js';

/**
 * templateSlots reads a template as `GET /{waba-id}/message_templates` lists it (uppercase types
 * and formats; an authentication template's OTP button listed as a URL button) and names every
 * value a send of it carries. The templates below are Meta's own examples of each kind
 * (templates/marketing-templates/*, catalogs/*, templates/authentication-templates, flows).
 */

function template(fields: { components: unknown[]; category?: string; parameter_format?: 'POSITIONAL' | 'NAMED' }): MessageTemplate {
  return messageTemplateSchema.parse({ name: 't', language: 'en_US', status: 'APPROVED', category: 'MARKETING', ...fields });
}

/** Each slot as `name` (required), `name?` (optional) or `name=source` (filled from another slot), in send order. */
function summary(t: MessageTemplate): { kind: TemplateKind; slots: string[] } {
  const { kind, slots } = templateSlots(t);
  return { kind, slots: slots.map((s) => (s.sameAs !== undefined ? `${s.name}=${s.sameAs}` : s.required ? s.name : `${s.name}?`)) };
}

const coupon = template({
  parameter_format: 'NAMED',
  components: [
    { type: 'BODY', text: 'Hi {{first_name}}, take {{discount}} off your next order with code {{coupon_code}}.' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'QUICK_REPLY', text: 'Unsubscribe' },
        { type: 'COPY_CODE', example: 'WINTER25' },
      ],
    },
  ],
});

const limitedTimeOffer = template({
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://scontent.whatsapp.net/offer.jpg'] } },
    { type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Expiring offer!', has_expiration: true } },
    { type: 'BODY', text: 'Good news, {{1}}! Use code {{2}} to get 25% off all Caribbean Destination packages!' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'COPY_CODE', example: 'CARIBE25' },
        { type: 'URL', text: 'Book now!', url: 'https://awesomedestinations.com/offers?code={{1}}' },
      ],
    },
  ],
});

const mediaCard = {
  components: [
    { type: 'HEADER', format: 'IMAGE', example: { header_handle: ['https://scontent.whatsapp.net/card.jpg'] } },
    { type: 'BODY', text: 'Use code {{1}} on this one.' },
    {
      type: 'BUTTONS',
      buttons: [
        { type: 'QUICK_REPLY', text: 'Send me more like this!' },
        { type: 'URL', text: 'Shop', url: 'https://www.luckyshrub.com/rare-succulents/{{1}}' },
      ],
    },
  ],
};
const mediaCarousel = template({
  components: [
    { type: 'BODY', text: 'Rare succulents for sale! {{1}}, add these to your collection for {{2}} off with code {{3}}.' },
    { type: 'CAROUSEL', cards: [mediaCard, mediaCard] },
  ],
});

const productCard = {
  components: [
    { type: 'HEADER', format: 'PRODUCT' },
    { type: 'BUTTONS', buttons: [{ type: 'SPM', text: 'View' }] },
  ],
};
const productCarousel = template({
  components: [
    { type: 'BODY', text: 'Hi {{1}}, these are back in stock.' },
    { type: 'CAROUSEL', cards: [productCard, productCard] },
  ],
});

const catalog = template({
  components: [
    { type: 'BODY', text: 'Now shop for your favourite products right here on WhatsApp! Get Rs {{1}} off on orders above {{2}}Rs!' },
    { type: 'FOOTER', text: 'Best grocery deals on WhatsApp!' },
    { type: 'BUTTONS', buttons: [{ type: 'CATALOG', text: 'View catalog' }] },
  ],
});

const multiProduct = template({
  components: [
    { type: 'HEADER', format: 'TEXT', text: 'Forget something, {{1}}?' },
    { type: 'BODY', text: 'Looks like you left these items in your cart, still interested? Use code {{1}} to get 10% off!' },
    { type: 'BUTTONS', buttons: [{ type: 'MPM', text: 'View items' }] },
  ],
});

const singleProduct = template({
  parameter_format: 'NAMED',
  components: [
    { type: 'HEADER', format: 'PRODUCT' },
    { type: 'BODY', text: 'Use code {{code}} for {{percent}} off!' },
    { type: 'FOOTER', text: 'Offer ends soon.' },
    { type: 'BUTTONS', buttons: [{ type: 'SPM', text: 'View' }] },
  ],
});

/** As the list shows one: created with an OTP button, listed as a URL button whose variable is the code. */
const authentication = template({
  category: 'AUTHENTICATION',
  components: [
    { type: 'BODY', text: '*{{1}}* is your verification code. For your security, do not share this code.' },
    { type: 'FOOTER', text: 'This code expires in 10 minutes.' },
    {
      type: 'BUTTONS',
      buttons: [{ type: 'URL', text: 'Copy code', url: 'https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp{{1}}' }],
    },
  ],
});

const flow = template({
  components: [
    { type: 'BODY', text: 'Hi {{1}}, tell us what you are looking for.' },
    { type: 'BUTTONS', buttons: [{ type: 'FLOW', text: 'Open flow!', flow_id: '1234567890', navigate_screen: 'WELCOME_SCREEN' }] },
  ],
});

const location = template({
  category: 'UTILITY',
  components: [
    { type: 'HEADER', format: 'LOCATION' },
    { type: 'BODY', text: 'Hi {{1}}, your order {{2}} is ready to collect here.' },
    { type: 'BUTTONS', buttons: [{ type: 'PHONE_NUMBER', text: 'Call the store', phone_number: '15550051310' }] },
  ],
});

const document = template({
  category: 'UTILITY',
  components: [
    { type: 'HEADER', format: 'DOCUMENT', example: { header_handle: ['https://scontent.whatsapp.net/invoice.pdf'] } },
    { type: 'BODY', text: 'Your invoice {{1}} for {{2}}.' },
    { type: 'BUTTONS', buttons: [{ type: 'VOICE_CALL', text: 'Call us' }] },
  ],
});

const gif = template({
  components: [
    { type: 'HEADER', format: 'GIF', example: { header_handle: ['https://scontent.whatsapp.net/sale.mp4'] } },
    { type: 'BODY', text: 'Hi {{1}}, the sale starts now.' },
    { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Shop', url: 'https://shop.example.com/sale' }] },
  ],
});

const namedBody = template({
  category: 'UTILITY',
  parameter_format: 'NAMED',
  components: [{ type: 'BODY', text: 'Hi {{first_name}}, order {{order_id}} is ready. Thanks, {{first_name}}!' }],
});

describe('templateSlots: the kind and the slots of each kind of template, in send order', () => {
  it.each([
    [
      'coupon code: named body, an optional quick-reply payload, the copy-code button',
      coupon,
      'coupon_code',
      ['body.first_name', 'body.discount', 'body.coupon_code', 'button.0.payload?', 'button.1.coupon_code'],
    ],
    [
      'limited-time offer with has_expiration: header, body, then the offer’s end before the buttons',
      limitedTimeOffer,
      'limited_time_offer',
      ['header.image', 'body.1', 'body.2', 'lto.expiration', 'button.0.coupon_code', 'button.1.url'],
    ],
    [
      'media-card carousel: the body, then card by card its image, body, optional payload and URL',
      mediaCarousel,
      'media_carousel',
      [
        'body.1',
        'body.2',
        'body.3',
        'card.0.header.image',
        'card.0.body.1',
        'card.0.button.0.payload?',
        'card.0.button.1.url',
        'card.1.header.image',
        'card.1.body.1',
        'card.1.button.0.payload?',
        'card.1.button.1.url',
      ],
    ],
    [
      'product-card carousel: one catalog for the message, a product per card, nothing for the View buttons',
      productCarousel,
      'product_carousel',
      ['catalog_id', 'body.1', 'card.0.header.product', 'card.1.header.product'],
    ],
    ['catalog: the thumbnail is optional', catalog, 'catalog', ['body.1', 'body.2', 'button.0.thumbnail?']],
    [
      'multi-product: text header, body, the thumbnail and the sections',
      multiProduct,
      'multi_product',
      ['header.1', 'body.1', 'button.0.thumbnail', 'button.0.sections'],
    ],
    [
      'single-product: the product and its catalog, then the named body; nothing for the View button',
      singleProduct,
      'single_product',
      ['header.product', 'catalog_id', 'body.code', 'body.percent'],
    ],
    [
      'authentication: the code is body.1, and the OTP button is filled from it',
      authentication,
      'authentication',
      ['body.1', 'button.0.code=body.1'],
    ],
    ['flow: token and first-screen data both optional', flow, 'flow', ['body.1', 'button.0.flow_token?', 'button.0.flow_action_data?']],
    [
      'location header: the place required, its name and address optional; nothing for a phone button',
      location,
      'standard',
      ['header.location', 'header.location.name?', 'header.location.address?', 'body.1', 'body.2'],
    ],
    [
      'document header: the link required, the file name optional; nothing for a voice-call button',
      document,
      'standard',
      ['header.document', 'header.document.filename?', 'body.1', 'body.2'],
    ],
    ['GIF header: its link; nothing for a URL button without a variable', gif, 'standard', ['header.gif', 'body.1']],
    ['named body: by variable name, a repeated one once', namedBody, 'standard', ['body.first_name', 'body.order_id']],
  ] as [string, MessageTemplate, TemplateKind, string[]][])('%s', (_label, t, kind, slots) => {
    expect(summary(t)).toStrictEqual({ kind, slots });
  });
});

describe('templateSlots: where each slot goes', () => {
  it('coupon code: body slots carry their variable; button slots their index and sub_type; the code at most 20 characters', () => {
    expect(templateSlots(coupon).slots).toStrictEqual([
      {
        name: 'body.first_name',
        kind: 'text',
        required: true,
        about: 'body variable {{first_name}}',
        component: 'body',
        variable: 'first_name',
      },
      { name: 'body.discount', kind: 'text', required: true, about: 'body variable {{discount}}', component: 'body', variable: 'discount' },
      {
        name: 'body.coupon_code',
        kind: 'text',
        required: true,
        about: 'body variable {{coupon_code}}',
        component: 'body',
        variable: 'coupon_code',
      },
      {
        name: 'button.0.payload',
        kind: 'payload',
        required: false,
        about: 'what a tap on "Unsubscribe" sends back',
        component: 'button',
        button: { index: 0, subType: 'quick_reply' },
      },
      {
        name: 'button.1.coupon_code',
        kind: 'coupon_code',
        required: true,
        about: 'the coupon code the button copies',
        component: 'button',
        button: { index: 1, subType: 'copy_code' },
        maxLength: 20,
      },
    ]);
  });

  it('limited-time offer: the image header, the offer’s end in its own component, the URL button’s variable', () => {
    const slots = templateSlots(limitedTimeOffer).slots;

    expect(
      slots.map(({ name, kind, component, media, variable, button }) => ({ name, kind, component, media, variable, button })),
    ).toStrictEqual([
      { name: 'header.image', kind: 'media', component: 'header', media: 'image', variable: undefined, button: undefined },
      { name: 'body.1', kind: 'text', component: 'body', media: undefined, variable: '1', button: undefined },
      { name: 'body.2', kind: 'text', component: 'body', media: undefined, variable: '2', button: undefined },
      {
        name: 'lto.expiration',
        kind: 'expiration',
        component: 'limited_time_offer',
        media: undefined,
        variable: undefined,
        button: undefined,
      },
      {
        name: 'button.0.coupon_code',
        kind: 'coupon_code',
        component: 'button',
        media: undefined,
        variable: undefined,
        button: { index: 0, subType: 'copy_code' },
      },
      { name: 'button.1.url', kind: 'url', component: 'button', media: undefined, variable: '1', button: { index: 1, subType: 'url' } },
    ]);
  });

  it('media-card carousel: every card slot carries its card index; a card’s quick-reply payload is optional', () => {
    const cardSlots = templateSlots(mediaCarousel).slots.filter((s) => s.card !== undefined);

    expect(
      cardSlots.map(({ name, card, kind, required, component, button }) => ({ name, card, kind, required, component, button })),
    ).toStrictEqual(
      [0, 1].flatMap((card) => [
        { name: `card.${card}.header.image`, card, kind: 'media', required: true, component: 'header', button: undefined },
        { name: `card.${card}.body.1`, card, kind: 'text', required: true, component: 'body', button: undefined },
        {
          name: `card.${card}.button.0.payload`,
          card,
          kind: 'payload',
          required: false,
          component: 'button',
          button: { index: 0, subType: 'quick_reply' },
        },
        { name: `card.${card}.button.1.url`, card, kind: 'url', required: true, component: 'button', button: { index: 1, subType: 'url' } },
      ]),
    );
    expect(cardSlots.map((s) => s.about.startsWith(`card ${s.card}: `))).not.toContain(false);
  });

  it('product-card carousel: the catalog slot is the message’s own (no card); a card’s URL button with a variable is a slot', () => {
    const urlCard = {
      components: [
        { type: 'HEADER', format: 'PRODUCT' },
        { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Buy', url: 'https://shop.example.com/p/{{1}}' }] },
      ],
    };
    const t = template({
      components: [
        { type: 'BODY', text: 'New in.' },
        { type: 'CAROUSEL', cards: [urlCard, urlCard] },
      ],
    });

    expect(summary(t)).toStrictEqual({
      kind: 'product_carousel',
      slots: ['catalog_id', 'card.0.header.product', 'card.0.button.0.url', 'card.1.header.product', 'card.1.button.0.url'],
    });
    expect(templateSlots(t).slots[0]).toStrictEqual({
      name: 'catalog_id',
      kind: 'catalog_id',
      required: true,
      about: 'the ID of the catalog the products are in',
      component: 'header',
    });
  });

  it('authentication: the button slot is a URL button’s text at index 0, filled from body.1; both at most 15 characters', () => {
    expect(templateSlots(authentication).slots).toStrictEqual([
      {
        name: 'body.1',
        kind: 'text',
        required: true,
        about: 'body variable {{1}}',
        component: 'body',
        variable: '1',
        maxLength: 15,
      },
      {
        name: 'button.0.code',
        kind: 'text',
        required: true,
        about: 'the one-time code, filled from body.1',
        component: 'button',
        button: { index: 0, subType: 'url' },
        sameAs: 'body.1',
        maxLength: 15,
      },
    ]);
  });

  it('limited-time offer: its coupon code is at most 15 characters (a coupon template’s, 20)', () => {
    expect(templateSlots(limitedTimeOffer).slots.find((s) => s.kind === 'coupon_code')).toMatchObject({
      name: 'button.0.coupon_code',
      maxLength: 15,
    });
    expect(templateSlots(coupon).slots.find((s) => s.kind === 'coupon_code')).toMatchObject({ maxLength: 20 });
  });

  it('a body or header variable outside an authentication template has no maxLength', () => {
    for (const t of [coupon, limitedTimeOffer, multiProduct, namedBody]) {
      expect(templateSlots(t).slots.filter((s) => s.kind === 'text' && s.maxLength !== undefined)).toStrictEqual([]);
    }
  });

  it('authentication with its button listed as created (OTP, otp_type) → the same slots', () => {
    const asCreated = template({
      category: 'AUTHENTICATION',
      components: authentication.components.map((c) =>
        c.type === 'BUTTONS' ? { type: 'BUTTONS', buttons: [{ type: 'OTP', otp_type: 'ONE_TAP', text: 'Autofill' }] } : c,
      ),
    });

    expect(templateSlots(asCreated)).toStrictEqual(templateSlots(authentication));
  });

  it('a URL button with a variable outside an authentication template is a URL slot, not a code', () => {
    const marketing = template({ components: authentication.components });

    expect(summary(marketing)).toStrictEqual({ kind: 'standard', slots: ['body.1', 'button.0.url'] });
  });

  it('a document header’s file name and a location’s name and address belong to the header', () => {
    expect(templateSlots(document).slots.slice(0, 2)).toStrictEqual([
      {
        name: 'header.document',
        kind: 'media',
        required: true,
        about: 'the header document: an https link',
        component: 'header',
        media: 'document',
      },
      {
        name: 'header.document.filename',
        kind: 'filename',
        required: false,
        about: "the document's file name as shown",
        component: 'header',
        media: 'document',
      },
    ]);
    expect(
      templateSlots(location)
        .slots.slice(0, 3)
        .map((s) => [s.kind, s.component]),
    ).toStrictEqual([
      ['location', 'header'],
      ['location_name', 'header'],
      ['location_address', 'header'],
    ]);
  });

  it('GIF: a media slot of kind gif', () => {
    expect(templateSlots(gif).slots[0]).toMatchObject({ name: 'header.gif', kind: 'media', media: 'gif', component: 'header' });
  });
});

describe('templateSlots: kinds and edge cases', () => {
  it('a limited-time offer without a countdown (has_expiration false) has no lto.expiration slot, and is still an offer', () => {
    const noCountdown = template({
      components: limitedTimeOffer.components.map((c) =>
        c.type === 'LIMITED_TIME_OFFER' ? { type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Offer!', has_expiration: false } } : c,
      ),
    });

    expect(summary(noCountdown)).toStrictEqual({
      kind: 'limited_time_offer',
      slots: ['header.image', 'body.1', 'body.2', 'button.0.coupon_code', 'button.1.url'],
    });
  });

  it('a limited-time offer whose has_expiration is absent (Meta’s default, false) has no lto.expiration slot', () => {
    const noFlag = template({
      components: limitedTimeOffer.components.map((c) =>
        c.type === 'LIMITED_TIME_OFFER' ? { type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Offer!' } } : c,
      ),
    });

    expect(summary(noFlag)).toStrictEqual({
      kind: 'limited_time_offer',
      slots: ['header.image', 'body.1', 'body.2', 'button.0.coupon_code', 'button.1.url'],
    });
    expect(templateSlots(noFlag).slots.find((s) => s.kind === 'coupon_code')?.maxLength).toBe(15);
  });

  it('a limited-time offer component without its limited_time_offer object has no lto.expiration slot either', () => {
    const bare = template({
      components: limitedTimeOffer.components.map((c) => (c.type === 'LIMITED_TIME_OFFER' ? { type: 'LIMITED_TIME_OFFER' } : c)),
    });

    expect(summary(bare).slots).not.toContain('lto.expiration');
    expect(summary(bare).kind).toBe('limited_time_offer');
  });

  it('a template with nothing to fill (static URL, phone number, voice call, no variables) is standard with no slots', () => {
    const plain = template({
      components: [
        { type: 'HEADER', format: 'TEXT', text: 'Spring sale' },
        { type: 'BODY', text: 'Our shop is open on Sunday.' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'URL', text: 'Shop', url: 'https://shop.example.com/' },
            { type: 'PHONE_NUMBER', text: 'Call', phone_number: '15550051310' },
            { type: 'VOICE_CALL', text: 'Call now' },
          ],
        },
      ],
    });

    expect(summary(plain)).toStrictEqual({ kind: 'standard', slots: [] });
  });

  it('quick replies outside a carousel: one optional payload each, by button index', () => {
    const survey = template({
      components: [
        { type: 'BODY', text: 'How was it?' },
        {
          type: 'BUTTONS',
          buttons: [
            { type: 'QUICK_REPLY', text: 'Good' },
            { type: 'QUICK_REPLY', text: 'Bad' },
          ],
        },
      ],
    });

    expect(summary(survey)).toStrictEqual({ kind: 'standard', slots: ['button.0.payload?', 'button.1.payload?'] });
  });

  it('a limited-time offer with a copy-code button is an offer, not a coupon template', () => {
    expect(templateSlots(limitedTimeOffer).kind).toBe('limited_time_offer');
  });

  it('requirementsOf carries the same kind and slots', () => {
    for (const t of [
      coupon,
      limitedTimeOffer,
      mediaCarousel,
      productCarousel,
      catalog,
      multiProduct,
      singleProduct,
      authentication,
      flow,
    ]) {
      const { kind, slots } = requirementsOf(t);
      expect({ kind, slots }).toStrictEqual(templateSlots(t));
    }
  });
});
