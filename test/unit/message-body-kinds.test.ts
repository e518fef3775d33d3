import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { messageForRow } from '../../src/campaigns/send/message-for-row.js';
import { planSend, type ColumnOptions, type PlanContext, type SendPlan } from '../../src/campaigns/send-plan.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { messageBody, messagePath } from '../../src/cloud-api/message-body.js';
import type { OutboundMessage } from '../../src/cloud-api/outbound-message.js';
import { requirementsOf } from '../../src/templates/template-requirements.js';
import { messageTemplateSchema } from '../../src/templates/template-schema.js';

/**
 * Each kind of template from end to end: the template as Meta lists it, a CSV header and the
 * `--param` mapping make the plan (planSend); a row's values, in slot order as the producer
 * queues them, make the message (messageForRow, which checks and fills every slot); the client
 * renders it (messageBody). The `template` object must have the shape of Meta's send example for
 * that kind (/tmp/meta-kinds.md, from Meta's pages for each kind), with our values. Where Meta
 * writes a button `index` as an integer we send the string ("0"), as its authentication, Flow and
 * carousel examples do and as its OpenAPI schema types it; media goes by `link`, not an upload ID.
 */

/** 1 December 2026, 12:00 UTC: the worker's clock, which a limited-time offer's end is checked against. */
const NOW = Date.UTC(2026, 11, 1, 12);

beforeEach(() => {
  vi.useFakeTimers({ now: NOW, toFake: ['Date'] });
});

afterEach(() => {
  vi.useRealTimers();
});

interface Listed {
  name: string;
  components: unknown[];
  category?: string;
  parameter_format?: 'POSITIONAL' | 'NAMED';
}

/** The plan of a template as Meta lists it (APPROVED, en_US), for a CSV header and a mapping. */
function planOf(listed: Listed, header: readonly string[], options: ColumnOptions = {}, context?: PlanContext): SendPlan {
  const template = messageTemplateSchema.parse({ language: 'en_US', status: 'APPROVED', category: 'MARKETING', ...listed });
  return planSend(requirementsOf(template), ['phone', ...header], options, CLI_FIELD_NAMES, context);
}

function definition(plan: SendPlan, overrides: Partial<CampaignDefinition> = {}): CampaignDefinition {
  return {
    id: 'kinds1',
    createdAt: 0,
    phoneNumberId: '200000000000002',
    plan,
    source: { file: 'kinds.csv', phoneColumn: 'phone', fixWhitespace: false },
    ...overrides,
  };
}

/** The message for one CSV row: its cells in slot order (and the header link apart), as the producer queues a row. */
function messageFor(plan: SendPlan, row: Readonly<Record<string, string>>, overrides: Partial<CampaignDefinition> = {}): OutboundMessage {
  const cell = (column: string): string => {
    const value = row[column];
    if (value === undefined) throw new Error(`the test row has no column "${column}"`);
    return value;
  };
  const result = messageForRow(definition(plan, overrides), {
    campaignId: 'kinds1',
    row: 2,
    to: '+14155550123',
    values: plan.slots.map((slot) => cell(slot.column)),
    ...(plan.headerMedia === undefined ? {} : { headerLink: cell(plan.headerMedia.column) }),
  });
  if (!result.ok) throw new Error(`expected a message, got: ${result.detail}`);
  return result.message;
}

/** The `template` object of the request body. */
function templateOf(message: OutboundMessage): unknown {
  return (messageBody(message) as { template?: unknown }).template;
}

const IMAGE = 'https://cdn.example.com/caribbean.jpg';

describe('coupon code (copy_code button)', () => {
  // Meta: templates/marketing-templates/coupon-templates. A quick reply at index 0 takes nothing; the copy-code button is index 1.
  const coupon: Listed = {
    name: 'winter_sale_coupon',
    parameter_format: 'NAMED',
    components: [
      { type: 'BODY', text: 'Use code {{coupon_code}} to get {{discount}} off!' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Unsubscribe' },
          { type: 'COPY_CODE', example: 'WINTER25' },
        ],
      },
    ],
  };

  it('named body parameters, then button copy_code with the coupon_code parameter', () => {
    const plan = planOf(coupon, ['coupon_code', 'discount'], { paramColumns: { 'button.1.coupon_code': 'coupon_code' } });

    expect(templateOf(messageFor(plan, { coupon_code: 'WINTER25', discount: '30%' }))).toStrictEqual({
      name: 'winter_sale_coupon',
      language: { code: 'en_US' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', parameter_name: 'coupon_code', text: 'WINTER25' },
            { type: 'text', parameter_name: 'discount', text: '30%' },
          ],
        },
        { type: 'button', sub_type: 'copy_code', index: '1', parameters: [{ type: 'coupon_code', coupon_code: 'WINTER25' }] },
      ],
    });
  });

  it('a mapped quick-reply payload is sent as its own button, before the copy-code one', () => {
    const plan = planOf(coupon, ['coupon_code', 'discount', 'tag'], {
      paramColumns: { 'button.1.coupon_code': 'coupon_code', 'button.0.payload': 'tag' },
    });
    const template = templateOf(messageFor(plan, { coupon_code: 'WINTER25', discount: '30%', tag: 'unsubscribe-winter' })) as {
      components: unknown[];
    };

    expect(template.components.slice(1)).toStrictEqual([
      { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'unsubscribe-winter' }] },
      { type: 'button', sub_type: 'copy_code', index: '1', parameters: [{ type: 'coupon_code', coupon_code: 'WINTER25' }] },
    ]);
  });
});

describe('limited-time offer', () => {
  // Meta: templates/marketing-templates/limited-time-offer-templates.
  const offer: Listed = {
    name: 'limited_time_offer_caribbean_pkg_2023',
    components: [
      { type: 'HEADER', format: 'IMAGE' },
      { type: 'LIMITED_TIME_OFFER', limited_time_offer: { text: 'Expiring offer!', has_expiration: true } },
      { type: 'BODY', text: 'Good news, {{1}}! Use code {{2}} to get 25% off all Caribbean Destination packages!' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'COPY_CODE', example: 'CARIBE25' },
          { type: 'URL', text: 'Book now!', url: 'https://awesomedestinations.com/offers?ref={{1}}' },
        ],
      },
    ],
  };
  const plan = planOf(offer, ['name', 'code', 'banner', 'ends', 'ref'], {
    params: ['name', 'code'],
    headerMediaColumn: 'banner',
    buttonUrlColumns: ['ref'],
    paramColumns: { 'lto.expiration': 'ends', 'button.0.coupon_code': 'code' },
  });
  const row = { name: 'Pablo', code: 'CARIBE25', banner: IMAGE, ends: '2026-12-24T18:00:00+01:00', ref: 'n3mtql' };

  it('header, body, the limited_time_offer component, then copy_code and url buttons', () => {
    expect(templateOf(messageFor(plan, row))).toStrictEqual({
      name: 'limited_time_offer_caribbean_pkg_2023',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'image', image: { link: IMAGE } }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Pablo' },
            { type: 'text', text: 'CARIBE25' },
          ],
        },
        {
          type: 'limited_time_offer',
          parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: Date.UTC(2026, 11, 24, 17) } }],
        },
        { type: 'button', sub_type: 'copy_code', index: '0', parameters: [{ type: 'coupon_code', coupon_code: 'CARIBE25' }] },
        { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'n3mtql' }] },
      ],
    });
  });

  it('expiration_time_ms is an integer (epoch milliseconds), not a string; epoch milliseconds in the cell are sent as given', () => {
    const ends = Date.UTC(2026, 11, 31, 23, 59);
    const template = templateOf(messageFor(plan, { ...row, ends: String(ends) })) as { components: Record<string, unknown>[] };
    const component = template.components.find((c) => c.type === 'limited_time_offer') as {
      parameters: { limited_time_offer: { expiration_time_ms: unknown } }[];
    };
    const sent = component.parameters[0]?.limited_time_offer.expiration_time_ms;

    expect(sent).toBe(ends);
    expect(Number.isInteger(sent)).toBe(true);
  });
});

describe('media-card carousel', () => {
  // Meta: templates/marketing-templates/media-card-carousel-templates (its example's string indexes).
  const card = {
    components: [
      { type: 'HEADER', format: 'IMAGE' },
      { type: 'BODY', text: 'Only {{1}} this week.' },
      {
        type: 'BUTTONS',
        buttons: [
          { type: 'QUICK_REPLY', text: 'Send me more like this!' },
          { type: 'URL', text: 'Shop', url: 'https://www.luckyshrub.com/rare-succulents/{{1}}' },
        ],
      },
    ],
  };
  const carousel: Listed = {
    name: 'carousel_template_media_cards_v1',
    components: [
      { type: 'BODY', text: 'Rare succulents for sale! {{1}}, add these to your collection for {{2}} off with code {{3}}.' },
      { type: 'CAROUSEL', cards: [card, card] },
    ],
  };
  const cardMapping = (i: number) => ({
    [`card.${i}.header.image`]: `image${i}`,
    [`card.${i}.body.1`]: `price${i}`,
    [`card.${i}.button.0.payload`]: `more${i}`,
    [`card.${i}.button.1.url`]: `slug${i}`,
  });

  it('the message body, then a carousel of cards with card_index, header image, body, quick_reply payload and url', () => {
    const plan = planOf(carousel, ['name', 'percent', 'code', 'image0', 'price0', 'more0', 'slug0', 'image1', 'price1', 'more1', 'slug1'], {
      params: ['name', 'percent', 'code'],
      paramColumns: { ...cardMapping(0), ...cardMapping(1) },
    });
    const row = {
      name: 'Pablo',
      percent: '20%',
      code: '20OFF',
      image0: 'https://cdn.example.com/aloe.jpg',
      price0: '$12',
      more0: 'more-aloes',
      slug0: 'blue-elf',
      image1: 'https://cdn.example.com/crassula.jpg',
      price1: '$15',
      more1: 'more-crassulas',
      slug1: 'buddhas-temple',
    };

    expect(templateOf(messageFor(plan, row))).toStrictEqual({
      name: 'carousel_template_media_cards_v1',
      language: { code: 'en_US' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Pablo' },
            { type: 'text', text: '20%' },
            { type: 'text', text: '20OFF' },
          ],
        },
        {
          type: 'carousel',
          cards: [
            {
              card_index: 0,
              components: [
                { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/aloe.jpg' } }] },
                { type: 'body', parameters: [{ type: 'text', text: '$12' }] },
                { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'more-aloes' }] },
                { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'blue-elf' }] },
              ],
            },
            {
              card_index: 1,
              components: [
                { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/crassula.jpg' } }] },
                { type: 'body', parameters: [{ type: 'text', text: '$15' }] },
                { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'more-crassulas' }] },
                { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'buddhas-temple' }] },
              ],
            },
          ],
        },
      ],
    });
  });

  it('a card’s quick-reply payload is optional: unmapped, the card carries no quick_reply button', () => {
    const withoutPayload = (i: number) =>
      Object.fromEntries(Object.entries(cardMapping(i)).filter(([slot]) => slot !== `card.${i}.button.0.payload`));
    const plan = planOf(carousel, ['name', 'percent', 'code', 'image0', 'price0', 'slug0', 'image1', 'price1', 'slug1'], {
      params: ['name', 'percent', 'code'],
      paramColumns: { ...withoutPayload(0), ...withoutPayload(1) },
    });
    const row = {
      name: 'Pablo',
      percent: '20%',
      code: '20OFF',
      image0: 'https://cdn.example.com/aloe.jpg',
      price0: '$12',
      slug0: 'blue-elf',
      image1: 'https://cdn.example.com/crassula.jpg',
      price1: '$15',
      slug1: 'buddhas-temple',
    };

    const components = (templateOf(messageFor(plan, row)) as { components: { type: string; cards?: unknown[] }[] }).components;
    expect(components[1]?.cards?.[0]).toStrictEqual({
      card_index: 0,
      components: [
        { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/aloe.jpg' } }] },
        { type: 'body', parameters: [{ type: 'text', text: '$12' }] },
        { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: 'blue-elf' }] },
      ],
    });
  });
});

describe('product-card carousel', () => {
  // Meta: catalogs/product-card-carousel-template-messages. The View (spm) buttons take nothing.
  const card = {
    components: [
      { type: 'HEADER', format: 'PRODUCT' },
      { type: 'BUTTONS', buttons: [{ type: 'SPM', text: 'View' }] },
    ],
  };
  const carousel: Listed = {
    name: 'carousel_template_product_cards_v1',
    components: [
      { type: 'BODY', text: 'Hi {{1}}, these are back in stock.' },
      { type: 'CAROUSEL', cards: [card, card] },
    ],
  };

  it('each card a product header with product_retailer_id and the one catalog_id', () => {
    const plan = planOf(carousel, ['name', 'catalog', 'first', 'second'], {
      params: ['name'],
      paramColumns: { catalog_id: 'catalog', 'card.0.header.product': 'first', 'card.1.header.product': 'second' },
    });
    const row = { name: 'Pablo', catalog: '194836987003835', first: 'vrpj01fvwp', second: 'va2l5ioeat' };
    const product = (id: string) => ({
      type: 'header',
      parameters: [{ type: 'product', product: { product_retailer_id: id, catalog_id: '194836987003835' } }],
    });

    expect(templateOf(messageFor(plan, row))).toStrictEqual({
      name: 'carousel_template_product_cards_v1',
      language: { code: 'en_US' },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: 'Pablo' }] },
        {
          type: 'carousel',
          cards: [
            { card_index: 0, components: [product('vrpj01fvwp')] },
            { card_index: 1, components: [product('va2l5ioeat')] },
          ],
        },
      ],
    });
  });
});

describe('catalog', () => {
  // Meta: catalogs/catalog-template-messages (sub_type written lowercase, as Meta's schema has it).
  const catalog: Listed = {
    name: 'intro_catalog_offer',
    components: [
      {
        type: 'BODY',
        text: 'Shop our products right here on WhatsApp! Get Rs {{1}} off on orders above {{2}}Rs! Valid for {{3}} days.',
      },
      { type: 'FOOTER', text: 'Best grocery deals on WhatsApp!' },
      { type: 'BUTTONS', buttons: [{ type: 'CATALOG', text: 'View catalog' }] },
    ],
  };
  const body = {
    type: 'body',
    parameters: [
      { type: 'text', text: '100' },
      { type: 'text', text: '400' },
      { type: 'text', text: '3' },
    ],
  };
  const row = { off: '100', above: '400', days: '3', thumb: '2lc20305pt' };

  it('with a thumbnail: button catalog with the action’s thumbnail_product_retailer_id', () => {
    const plan = planOf(catalog, ['off', 'above', 'days', 'thumb'], {
      params: ['off', 'above', 'days'],
      paramColumns: { 'button.0.thumbnail': 'thumb' },
    });

    expect(templateOf(messageFor(plan, row))).toStrictEqual({
      name: 'intro_catalog_offer',
      language: { code: 'en_US' },
      components: [
        body,
        {
          type: 'button',
          sub_type: 'catalog',
          index: '0',
          parameters: [{ type: 'action', action: { thumbnail_product_retailer_id: '2lc20305pt' } }],
        },
      ],
    });
  });

  it('without a thumbnail mapped: the button is left out (Meta shows the catalog’s first product)', () => {
    const plan = planOf(catalog, ['off', 'above', 'days'], { params: ['off', 'above', 'days'] });

    expect(templateOf(messageFor(plan, row))).toStrictEqual({
      name: 'intro_catalog_offer',
      language: { code: 'en_US' },
      components: [body],
    });
  });

  it('a catalog button given without a thumbnail is rendered with an empty action', () => {
    const message: OutboundMessage = {
      kind: 'template',
      to: '+14155550123',
      name: 'intro_catalog_offer',
      language: 'en_US',
      body: [],
      buttons: [{ subType: 'catalog', index: 0 }],
    };

    expect(templateOf(message)).toStrictEqual({
      name: 'intro_catalog_offer',
      language: { code: 'en_US' },
      components: [{ type: 'button', sub_type: 'catalog', index: '0', parameters: [{ type: 'action', action: {} }] }],
    });
  });
});

describe('multi-product (MPM)', () => {
  // Meta: catalogs/mpm-template-messages.
  const mpm: Listed = {
    name: 'abandoned_cart',
    components: [
      { type: 'HEADER', format: 'TEXT', text: 'Forget something, {{1}}?' },
      { type: 'BODY', text: 'Looks like you left these items in your cart, still interested? Use code {{1}} to get 10% off!' },
      { type: 'BUTTONS', buttons: [{ type: 'MPM', text: 'View items' }] },
    ],
  };

  it('text header, body, then button mpm with the thumbnail and the sections’ product_items', () => {
    const plan = planOf(mpm, ['name', 'code', 'thumb', 'products'], {
      headerTextColumn: 'name',
      params: ['code'],
      paramColumns: { 'button.0.thumbnail': 'thumb', 'button.0.sections': 'products' },
    });
    const row = {
      name: 'Pablo',
      code: '10OFF',
      thumb: '2lc20305pt',
      products: 'Popular Bundles: 2lc20305pt, nseiw1x3ch; Premium Packages: n6k6x0y7oe',
    };

    expect(templateOf(messageFor(plan, row))).toStrictEqual({
      name: 'abandoned_cart',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'text', text: 'Pablo' }] },
        { type: 'body', parameters: [{ type: 'text', text: '10OFF' }] },
        {
          type: 'button',
          sub_type: 'mpm',
          index: '0',
          parameters: [
            {
              type: 'action',
              action: {
                thumbnail_product_retailer_id: '2lc20305pt',
                sections: [
                  {
                    title: 'Popular Bundles',
                    product_items: [{ product_retailer_id: '2lc20305pt' }, { product_retailer_id: 'nseiw1x3ch' }],
                  },
                  { title: 'Premium Packages', product_items: [{ product_retailer_id: 'n6k6x0y7oe' }] },
                ],
              },
            },
          ],
        },
      ],
    });
  });
});

describe('single-product (SPM)', () => {
  // Meta: catalogs/spm-template-messages. The View (spm) button takes nothing.
  const spm: Listed = {
    name: 'spm_template_named_params',
    parameter_format: 'NAMED',
    components: [
      { type: 'HEADER', format: 'PRODUCT' },
      { type: 'BODY', text: 'Use code {{code}} to get {{percent}} off this one!' },
      { type: 'FOOTER', text: 'Offer ends soon.' },
      { type: 'BUTTONS', buttons: [{ type: 'SPM', text: 'View' }] },
    ],
  };

  it('a product header with product_retailer_id and catalog_id, then the named body; no button', () => {
    const plan = planOf(spm, ['code', 'percent', 'sku', 'catalog'], {
      paramColumns: { 'header.product': 'sku', catalog_id: 'catalog' },
    });

    expect(templateOf(messageFor(plan, { code: '25OFF', percent: '25%', sku: 'nqryix03ez', catalog: '194836987003835' }))).toStrictEqual({
      name: 'spm_template_named_params',
      language: { code: 'en_US' },
      components: [
        {
          type: 'header',
          parameters: [{ type: 'product', product: { product_retailer_id: 'nqryix03ez', catalog_id: '194836987003835' } }],
        },
        {
          type: 'body',
          parameters: [
            { type: 'text', parameter_name: 'code', text: '25OFF' },
            { type: 'text', parameter_name: 'percent', text: '25%' },
          ],
        },
      ],
    });
  });
});

describe('authentication', () => {
  // Meta: templates/authentication-templates/copy-code-button-authentication-templates ("this value must appear twice").
  const verification: Listed = {
    name: 'verification_code',
    category: 'AUTHENTICATION',
    components: [
      { type: 'BODY', text: '*{{1}}* is your verification code. For your security, do not share this code.' },
      { type: 'FOOTER', text: 'This code expires in 10 minutes.' },
      {
        type: 'BUTTONS',
        buttons: [{ type: 'URL', text: 'Copy code', url: 'https://www.whatsapp.com/otp/code/?otp_type=COPY_CODE&code=otp{{1}}' }],
      },
    ],
  };

  it('the code in the body and, as written, in the url button at index "0"', () => {
    const plan = planOf(verification, ['otp'], { params: ['otp'] });

    expect(templateOf(messageFor(plan, { otp: 'J$FpnYnP' }))).toStrictEqual({
      name: 'verification_code',
      language: { code: 'en_US' },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: 'J$FpnYnP' }] },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'J$FpnYnP' }] },
      ],
    });
  });
});

describe('flow', () => {
  // Meta: flows/guides/sendingaflow, "Send template with flow". Token and data are both optional.
  const flow: Listed = {
    name: 'lead_flow',
    components: [
      { type: 'BODY', text: 'Tell us what you are looking for.' },
      { type: 'BUTTONS', buttons: [{ type: 'FLOW', text: 'Open flow!', flow_id: '1234567890123456', navigate_screen: 'WELCOME_SCREEN' }] },
    ],
  };
  const row = { token: 'row-000123', data: '{ "product": "sofa", "visit": true }' };

  it('button flow with an action of flow_token and flow_action_data as a JSON object', () => {
    const plan = planOf(flow, ['token', 'data'], { paramColumns: { 'button.0.flow_token': 'token', 'button.0.flow_action_data': 'data' } });

    expect(templateOf(messageFor(plan, row))).toStrictEqual({
      name: 'lead_flow',
      language: { code: 'en_US' },
      components: [
        {
          type: 'button',
          sub_type: 'flow',
          index: '0',
          parameters: [{ type: 'action', action: { flow_token: 'row-000123', flow_action_data: { product: 'sofa', visit: true } } }],
        },
      ],
    });
  });

  it('only the token mapped: an action with flow_token alone', () => {
    const plan = planOf(flow, ['token'], { paramColumns: { 'button.0.flow_token': 'token' } });

    expect(templateOf(messageFor(plan, row))).toStrictEqual({
      name: 'lead_flow',
      language: { code: 'en_US' },
      components: [
        { type: 'button', sub_type: 'flow', index: '0', parameters: [{ type: 'action', action: { flow_token: 'row-000123' } }] },
      ],
    });
  });

  it('nothing mapped: no flow component (Meta uses its defaults)', () => {
    const plan = planOf(flow, ['token', 'data']);

    expect(templateOf(messageFor(plan, row))).toStrictEqual({ name: 'lead_flow', language: { code: 'en_US' } });
  });
});

describe('location header', () => {
  // Meta: templates/utility-templates/location-templates: latitude and longitude as strings; name and address optional.
  const location: Listed = {
    name: 'order_pickup',
    category: 'UTILITY',
    components: [
      { type: 'HEADER', format: 'LOCATION' },
      { type: 'BODY', text: 'Your order {{1}} is ready to collect here.' },
    ],
  };

  it('a location header with latitude and longitude as strings, its name and address', () => {
    const plan = planOf(location, ['order', 'place', 'store', 'street'], {
      params: ['order'],
      paramColumns: { 'header.location': 'place', 'header.location.name': 'store', 'header.location.address': 'street' },
    });
    const row = {
      order: 'A-1001',
      place: '37.44211676562361, -122.16155960083124',
      store: 'Philz Coffee',
      street: '101 Forest Ave, Palo Alto, CA 94301',
    };

    expect(templateOf(messageFor(plan, row))).toStrictEqual({
      name: 'order_pickup',
      language: { code: 'en_US' },
      components: [
        {
          type: 'header',
          parameters: [
            {
              type: 'location',
              location: {
                latitude: '37.44211676562361',
                longitude: '-122.16155960083124',
                name: 'Philz Coffee',
                address: '101 Forest Ave, Palo Alto, CA 94301',
              },
            },
          ],
        },
        { type: 'body', parameters: [{ type: 'text', text: 'A-1001' }] },
      ],
    });
  });

  it('the place alone, as written in the cell → its degrees as written (trimmed, no + sign), no name or address', () => {
    const plan = planOf(location, ['order', 'place'], { params: ['order'], paramColumns: { 'header.location': 'place' } });
    const header = (place: string) => (templateOf(messageFor(plan, { order: 'A-1001', place })) as { components: unknown[] }).components[0];

    expect(header('52.5200, 13.4050')).toStrictEqual({
      type: 'header',
      parameters: [{ type: 'location', location: { latitude: '52.5200', longitude: '13.4050' } }],
    });
    expect(header('+0.0000001 , -0.0')).toStrictEqual({
      type: 'header',
      parameters: [{ type: 'location', location: { latitude: '0.0000001', longitude: '-0.0' } }],
    });
  });
});

describe('document and GIF headers', () => {
  const document: Listed = {
    name: 'invoice_document',
    category: 'UTILITY',
    components: [
      { type: 'HEADER', format: 'DOCUMENT' },
      { type: 'BODY', text: 'Your invoice {{1}} is attached.' },
    ],
  };
  const PDF = 'https://cdn.example.com/invoices/1001.pdf';

  it('a document header with its link and the mapped filename', () => {
    const plan = planOf(document, ['invoice', 'pdf', 'file_name'], {
      params: ['invoice'],
      headerMediaColumn: 'pdf',
      paramColumns: { 'header.document.filename': 'file_name' },
    });

    expect(templateOf(messageFor(plan, { invoice: '1001', pdf: PDF, file_name: 'invoice-1001.pdf' }))).toStrictEqual({
      name: 'invoice_document',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'document', document: { link: PDF, filename: 'invoice-1001.pdf' } }] },
        { type: 'body', parameters: [{ type: 'text', text: '1001' }] },
      ],
    });
  });

  it('a document header without a filename mapped: the link alone', () => {
    const plan = planOf(document, ['invoice', 'pdf'], { params: ['invoice'], headerMediaColumn: 'pdf' });

    expect((templateOf(messageFor(plan, { invoice: '1001', pdf: PDF })) as { components: unknown[] }).components[0]).toStrictEqual({
      type: 'header',
      parameters: [{ type: 'document', document: { link: PDF } }],
    });
  });

  it('a GIF header: {type: "gif", gif: {link}}, posted to /marketing_messages', () => {
    const gif: Listed = {
      name: 'gif_promo',
      components: [
        { type: 'HEADER', format: 'GIF' },
        { type: 'BODY', text: 'The sale starts now.' },
      ],
    };
    const plan = planOf(gif, ['clip'], { headerMediaColumn: 'clip' }, { endpoint: 'marketing-messages' });
    const message = messageFor(plan, { clip: 'https://cdn.example.com/sale.mp4' }, { endpoint: 'marketing-messages' });

    expect(messagePath(message)).toBe('marketing_messages');
    expect(templateOf(message)).toStrictEqual({
      name: 'gif_promo',
      language: { code: 'en_US' },
      components: [{ type: 'header', parameters: [{ type: 'gif', gif: { link: 'https://cdn.example.com/sale.mp4' } }] }],
    });
  });
});
