import { describe, expect, it } from 'vitest';
import type { CapturedExchange } from '../../src/sandbox/index.js';
import { checkCaptures, type CaptureFile } from '../support/capture-check.js';
import { marketingRequestContract, requestContract } from '../support/request-contract.js';

/**
 * The overlay's template kinds (test/support/openapi-overlay.ts, "template sends"), through the
 * check the `captured` project runs (capture-check.ts: a send of ours walked by
 * request-contract.ts against the overlaid spec, strictly): the `template` object of Meta's send
 * example for each kind (/tmp/meta-kinds.md, from the page each entry cites) passes, on /messages
 * and on /marketing_messages; the same example with one mistake does not, and the check says
 * what is wrong.
 */
type Json = Record<string, unknown>;

const PRODUCT = 'campaign-worker/0.2.0';
const NUMBER = '106540352242922';
const WABA = '100000000000001';

function exchange(overrides: Partial<CapturedExchange>): CapturedExchange {
  return {
    kind: 'exchange',
    at: '2026-11-29T00:00:00.000Z',
    method: 'POST',
    path: `/v25.0/${NUMBER}/messages`,
    query: {},
    userAgent: PRODUCT,
    contentType: 'application/json',
    status: null,
    ...overrides,
  };
}

/** The errors the captured check finds in these lines, one string each. */
function errorsOf(...lines: CapturedExchange[]): string[] {
  const file: CaptureFile = { name: 'sandbox-1-2.ndjson', lines: lines.map((line) => JSON.stringify(line)), unterminated: false };
  return checkCaptures([file]).findings.flatMap((finding) => finding.errors);
}

/** A send of this template object by our client, to /messages or to /marketing_messages. */
function send(template: Json, path: 'messages' | 'marketing_messages' = 'messages'): CapturedExchange {
  const body = { messaging_product: 'whatsapp', recipient_type: 'individual', to: '+16505551234', type: 'template', template };
  return exchange({ path: `/v25.0/${NUMBER}/${path}`, body });
}

const sendErrors = (template: Json, path?: 'messages' | 'marketing_messages'): string[] => errorsOf(send(template, path));

/**
 * Every error of the walk the check runs on such a send (request-contract.ts, strict): the
 * check reports only the first few, which for a mistake the top-level `Message` schema sees too
 * are that schema's.
 */
function walkErrors(template: Json, path: 'messages' | 'marketing_messages' = 'messages'): string[] {
  const body = send(template, path).body;
  return (path === 'messages' ? requestContract(body, true) : marketingRequestContract(body, true)).errors;
}

/** `template` with its components changed by `edit`. */
function edited(template: Json, edit: (components: Json[]) => void): Json {
  const copy = structuredClone(template) as { components: Json[] };
  edit(copy.components);
  return copy;
}

const text = (value: string, name?: string): Json => ({
  type: 'text',
  ...(name === undefined ? {} : { parameter_name: name }),
  text: value,
});

// ---- Meta's send examples, one per kind (the `template` object of each page's request) -----------

/** templates/marketing-templates/coupon-templates */
const COUPON: Json = {
  name: 'winter_sale_coupon',
  language: { code: 'en_US' },
  components: [
    { type: 'body', parameters: [text('WINTER25', 'coupon_code'), text('30%', 'discount')] },
    { type: 'button', sub_type: 'copy_code', index: 1, parameters: [{ type: 'coupon_code', coupon_code: 'WINTER25' }] },
  ],
};

/** templates/marketing-templates/limited-time-offer-templates */
const LIMITED_TIME_OFFER: Json = {
  name: 'limited_time_offer_caribbean_pkg_2023',
  language: { code: 'en_US' },
  components: [
    { type: 'header', parameters: [{ type: 'image', image: { id: '1602186516975000' } }] },
    { type: 'body', parameters: [text('Pablo'), text('CARIBE25')] },
    { type: 'limited_time_offer', parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: 1209600000 } }] },
    { type: 'button', sub_type: 'copy_code', index: 0, parameters: [{ type: 'coupon_code', coupon_code: 'CARIBE25' }] },
    { type: 'button', sub_type: 'url', index: 1, parameters: [text('n3mtql')] },
  ],
};

const mediaCard = (index: number, image: string, payload: string, suffix: string): Json => ({
  card_index: index,
  components: [
    { type: 'header', parameters: [{ type: 'image', image: { id: image } }] },
    { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload }] },
    { type: 'button', sub_type: 'url', index: '1', parameters: [text(suffix)] },
  ],
});

/** templates/marketing-templates/media-card-carousel-templates */
const MEDIA_CAROUSEL: Json = {
  name: 'carousel_template_media_cards_v1',
  language: { code: 'en_US' },
  components: [
    { type: 'body', parameters: [text('Pablo'), text('20%'), text('20OFF')] },
    {
      type: 'carousel',
      cards: [
        mediaCard(0, '1558081531584829', 'more-aloes', 'blue-elf'),
        mediaCard(1, '861236878885705', 'more-crassulas', 'buddhas-temple'),
        mediaCard(2, '1587064918516321', 'more-echeverias', 'black-prince'),
      ],
    },
  ],
};

/** The same page's request syntax: a video card with its own body, and integer indexes. */
const VIDEO_CARD: Json = {
  card_index: 0,
  components: [
    { type: 'header', parameters: [{ type: 'video', video: { id: '1558081531584830' } }] },
    { type: 'body', parameters: [text('Linen shirt')] },
    { type: 'button', sub_type: 'quick_reply', index: 0, parameters: [{ type: 'payload', payload: 'more-shirts' }] },
    { type: 'button', sub_type: 'url', index: 1, parameters: [text('linen')] },
  ],
};

const productCard = (index: number, id: string): Json => ({
  card_index: index,
  components: [{ type: 'header', parameters: [{ type: 'product', product: { product_retailer_id: id, catalog_id: '194836987003835' } }] }],
});

/** catalogs/product-card-carousel-template-messages */
const PRODUCT_CAROUSEL: Json = {
  name: 'carousel_template_product_cards_v1',
  language: { code: 'en_US' },
  components: [
    { type: 'body', parameters: [text('Pablo')] },
    { type: 'carousel', cards: [productCard(0, 'vrpj01fvwp'), productCard(1, 'va2l5ioeat'), productCard(2, 'sqpjv0mgde')] },
  ],
};

/** catalogs/catalog-template-messages */
const CATALOG: Json = {
  name: 'intro_catalog_offer',
  language: { code: 'en_US' },
  components: [
    { type: 'body', parameters: [text('100'), text('400'), text('3')] },
    {
      type: 'button',
      sub_type: 'CATALOG',
      index: 0,
      parameters: [{ type: 'action', action: { thumbnail_product_retailer_id: '2lc20305pt' } }],
    },
  ],
};

/** catalogs/mpm-template-messages */
const MPM: Json = {
  name: 'abandoned_cart',
  language: { code: 'en_US' },
  components: [
    { type: 'header', parameters: [text('Pablo')] },
    { type: 'body', parameters: [text('10OFF')] },
    {
      type: 'button',
      sub_type: 'mpm',
      index: 0,
      parameters: [
        {
          type: 'action',
          action: {
            thumbnail_product_retailer_id: '2lc20305pt',
            sections: [
              { title: 'Popular Bundles', product_items: [{ product_retailer_id: '2lc20305pt' }, { product_retailer_id: 'nseiw1x3ch' }] },
              { title: 'Premium Packages', product_items: [{ product_retailer_id: 'n6k6x0y7oe' }] },
            ],
          },
        },
      ],
    },
  ],
};

/** catalogs/spm-template-messages */
const SPM: Json = {
  name: 'spm_template_named_params',
  language: { code: 'en_US' },
  components: [
    { type: 'header', parameters: [{ type: 'product', product: { product_retailer_id: 'nqryix03ez', catalog_id: '194836987003835' } }] },
    { type: 'body', parameters: [text('25OFF', 'code'), text('25%', 'percent')] },
  ],
};

/** templates/authentication-templates/copy-code-button-authentication-templates */
const AUTHENTICATION: Json = {
  name: 'verification_code',
  language: { code: 'en_US' },
  components: [
    { type: 'body', parameters: [text('J$FpnYnP')] },
    { type: 'button', sub_type: 'url', index: '0', parameters: [text('J$FpnYnP')] },
  ],
};

/** flows/guides/sendingaflow ("Send template with flow") */
const FLOW: Json = {
  name: 'lead_flow',
  language: { code: 'en_US' },
  components: [
    {
      type: 'button',
      sub_type: 'flow',
      index: '0',
      parameters: [{ type: 'action', action: { flow_token: 'FLOW_TOKEN', flow_action_data: {} } }],
    },
  ],
};

/** templates/utility-templates/location-templates */
const LOCATION: Json = {
  name: 'order_pickup_location',
  language: { code: 'en_US', policy: 'deterministic' },
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
    { type: 'body', parameters: [text('Ana')] },
  ],
};

/** A document header by link, with the filename of messages/document-messages. */
const DOCUMENT: Json = {
  name: 'invoice_document',
  language: { code: 'en_US' },
  components: [
    {
      type: 'header',
      parameters: [{ type: 'document', document: { link: 'https://cdn.example.com/invoice.pdf', filename: 'invoice.pdf' } }],
    },
    { type: 'body', parameters: [text('Ana'), text('INV-2041')] },
  ],
};

/** A GIF header (templates/components: Marketing Messages API only), shaped as the image and video ones. */
const GIF: Json = {
  name: 'gif_promo',
  language: { code: 'en_US' },
  components: [
    { type: 'header', parameters: [{ type: 'gif', gif: { link: 'https://cdn.example.com/sale.mp4' } }] },
    { type: 'body', parameters: [text('Ana')] },
  ],
};

/** calling/call-button-messages-deep-links ("a simplified sample": no index) */
const VOICE_CALL: Json = {
  name: 'wa_voice_call',
  language: { code: 'en' },
  components: [
    {
      type: 'button',
      sub_type: 'voice_call',
      parameters: [
        { type: 'ttl_minutes', ttl_minutes: 100 },
        { type: 'payload', payload: 'payload data' },
      ],
    },
  ],
};

const EXAMPLES: [string, Json][] = [
  ['coupon code (copy_code, integer index)', COUPON],
  ['limited-time offer', LIMITED_TIME_OFFER],
  ['media-card carousel (string indexes)', MEDIA_CAROUSEL],
  ['media-card carousel, a video card with a body (integer indexes)', edited(MEDIA_CAROUSEL, (c) => ((c[1] as Json).cards = [VIDEO_CARD]))],
  ['product-card carousel', PRODUCT_CAROUSEL],
  ['catalog (sub_type CATALOG)', CATALOG],
  [
    'catalog (sub_type catalog, no thumbnail)',
    edited(CATALOG, (c) => Object.assign(c[1] as Json, { sub_type: 'catalog', parameters: [{ type: 'action', action: {} }] })),
  ],
  ['multi-product (mpm)', MPM],
  ['single product (spm: product header)', SPM],
  ['authentication (url button, string index)', AUTHENTICATION],
  ['Flow button', FLOW],
  ['location header', LOCATION],
  [
    'location header, numbers, without name and address',
    edited(
      LOCATION,
      (c) => ((c[0] as { parameters: Json[] }).parameters[0] = { type: 'location', location: { latitude: 37.44, longitude: -122.16 } }),
    ),
  ],
  ['document header with filename', DOCUMENT],
  ['voice-call button without index', VOICE_CALL],
];

describe("Meta's example of each template kind passes the captured check", () => {
  it.each(EXAMPLES)('%s, on /messages', (_kind, template) => {
    expect(sendErrors(template)).toEqual([]);
  });

  // MarketingMessageRequestPayload's `template` is the same TemplateObject.
  it.each(EXAMPLES)('%s, on /marketing_messages', (_kind, template) => {
    expect(sendErrors(template, 'marketing_messages')).toEqual([]);
  });

  it('a GIF header, on /marketing_messages', () => {
    expect(sendErrors(GIF, 'marketing_messages')).toEqual([]);
  });
});

/** Sets `value` at a path of keys and indexes below the template's components. */
function withAt(template: Json, path: (string | number)[], value: unknown): Json {
  return edited(template, (components) => {
    let node: unknown = components;
    for (const key of path.slice(0, -1)) node = (node as Record<string | number, unknown>)[key];
    const last = path[path.length - 1] as string | number;
    if (value === undefined) delete (node as Record<string | number, unknown>)[last];
    else (node as Record<string | number, unknown>)[last] = value;
  });
}

const without = (template: Json, path: (string | number)[]): Json => withAt(template, path, undefined);

describe('the same examples with one mistake do not', () => {
  const MISTAKES: [string, Json, string][] = [
    [
      'a coupon_code parameter missing its value',
      without(COUPON, [1, 'parameters', 0, 'coupon_code']),
      "must have required property 'coupon_code'",
    ],
    [
      'a coupon code of 21 characters',
      withAt(COUPON, [1, 'parameters', 0, 'coupon_code'], 'C'.repeat(21)),
      'must NOT have more than 20 characters',
    ],
    [
      'a copy_code button given a text parameter',
      withAt(COUPON, [1, 'parameters', 0], text('WINTER25')),
      "must have required property 'coupon_code'",
    ],
    ['a button index of 10', withAt(COUPON, [1, 'index'], 10), 'must be <= 9'],
    ['a button index of "10"', withAt(COUPON, [1, 'index'], '10'), 'must match pattern "^[0-9]$"'],
    ['a button without index', without(COUPON, [1, 'index']), "must have required property 'index'"],
    [
      'an offer without expiration_time_ms',
      withAt(LIMITED_TIME_OFFER, [2, 'parameters', 0, 'limited_time_offer'], {}),
      "must have required property 'expiration_time_ms'",
    ],
    [
      'an offer expiring at a string',
      withAt(LIMITED_TIME_OFFER, [2, 'parameters', 0, 'limited_time_offer', 'expiration_time_ms'], '1209600000'),
      'must be integer',
    ],
    [
      'an offer given a text parameter',
      withAt(LIMITED_TIME_OFFER, [2, 'parameters', 0], text('soon')),
      "must have required property 'limited_time_offer'",
    ],
    ['a card without card_index', without(MEDIA_CAROUSEL, [1, 'cards', 1, 'card_index']), "must have required property 'card_index'"],
    ['a card_index given as a string', withAt(MEDIA_CAROUSEL, [1, 'cards', 1, 'card_index'], '1'), 'must be integer'],
    ['a carousel without cards', without(MEDIA_CAROUSEL, [1, 'cards']), "must have required property 'cards'"],
    [
      'a carousel of 11 cards',
      withAt(
        MEDIA_CAROUSEL,
        [1, 'cards'],
        Array.from({ length: 11 }, (_, i) => mediaCard(i % 10, '1', 'p', 's')),
      ),
      'must NOT have more than 10 items',
    ],
    [
      'a card with a misspelt key',
      withAt(MEDIA_CAROUSEL, [1, 'cards', 0, 'card_idx'], 0),
      'must NOT have unevaluated properties: card_idx',
    ],
    [
      'a card image header without its image',
      without(MEDIA_CAROUSEL, [1, 'cards', 0, 'components', 0, 'parameters', 0, 'image']),
      "must have required property 'image'",
    ],
    [
      'a card with a text header',
      withAt(MEDIA_CAROUSEL, [1, 'cards', 0, 'components', 0, 'parameters', 0], text('Aloes')),
      'must be equal to one of the allowed values',
    ],
    [
      'a card url button given a payload',
      withAt(MEDIA_CAROUSEL, [1, 'cards', 0, 'components', 2, 'parameters', 0], { type: 'payload', payload: 'x' }),
      'a url button takes one text parameter',
    ],
    [
      'a product without catalog_id',
      without(PRODUCT_CAROUSEL, [1, 'cards', 2, 'components', 0, 'parameters', 0, 'product', 'catalog_id']),
      "must have required property 'catalog_id'",
    ],
    [
      'a product header without product_retailer_id',
      without(SPM, [0, 'parameters', 0, 'product', 'product_retailer_id']),
      "must have required property 'product_retailer_id'",
    ],
    [
      'a catalog action with a key of another button',
      withAt(CATALOG, [1, 'parameters', 0, 'action', 'flow_token'], 'x'),
      'must be equal to one of the allowed values',
    ],
    [
      'a catalog action with a misspelt key',
      withAt(CATALOG, [1, 'parameters', 0, 'action', 'thumbnail_product_id'], 'x'),
      'must NOT have unevaluated properties: thumbnail_product_id',
    ],
    ['an mpm action without sections', without(MPM, [2, 'parameters', 0, 'action', 'sections']), "must have required property 'sections'"],
    [
      'an mpm section without products',
      withAt(MPM, [2, 'parameters', 0, 'action', 'sections', 1, 'product_items'], []),
      'must NOT have fewer than 1 items',
    ],
    [
      'an mpm section title of 25 characters',
      withAt(MPM, [2, 'parameters', 0, 'action', 'sections', 0, 'title'], 'T'.repeat(25)),
      'must NOT have more than 24 characters',
    ],
    [
      'one of two mpm sections without a title',
      without(MPM, [2, 'parameters', 0, 'action', 'sections', 1, 'title']),
      "must have required property 'title'",
    ],
    ['an action parameter without its action', without(FLOW, [0, 'parameters', 0, 'action']), "must have required property 'action'"],
    [
      'a Flow action naming its flow',
      withAt(FLOW, [0, 'parameters', 0, 'action', 'flow_id'], '123'),
      'must NOT have unevaluated properties: flow_id',
    ],
    [
      'a Flow action with a catalog key',
      withAt(FLOW, [0, 'parameters', 0, 'action', 'thumbnail_product_retailer_id'], 'x'),
      'must be equal to one of the allowed values',
    ],
    ['a Flow token that is not a string', withAt(FLOW, [0, 'parameters', 0, 'action', 'flow_token'], 7), 'must be string'],
    [
      'a location without longitude',
      without(LOCATION, [0, 'parameters', 0, 'location', 'longitude']),
      "must have required property 'longitude'",
    ],
    [
      'a latitude that is not decimal degrees',
      withAt(LOCATION, [0, 'parameters', 0, 'location', 'latitude'], 'north'),
      'must match pattern',
    ],
    [
      'a location with a misspelt key',
      withAt(LOCATION, [0, 'parameters', 0, 'location', 'adress'], 'x'),
      'must NOT have unevaluated properties: adress',
    ],
    [
      'a document with a misspelt filename',
      withAt(DOCUMENT, [0, 'parameters', 0, 'document', 'file_name'], 'x.pdf'),
      'must NOT have unevaluated properties: file_name',
    ],
    [
      'an image with a filename',
      withAt(LIMITED_TIME_OFFER, [0, 'parameters', 0, 'image', 'filename'], 'x.jpg'),
      'must NOT have unevaluated properties: filename',
    ],
    ['a voice-call ttl_minutes as a string', withAt(VOICE_CALL, [0, 'parameters', 0, 'ttl_minutes'], '100'), 'must be integer'],
    ['a voice-call ttl_minutes above 43200', withAt(VOICE_CALL, [0, 'parameters', 0, 'ttl_minutes'], 43201), 'must be <= 43200'],
    [
      'a voice-call button given a coupon',
      withAt(VOICE_CALL, [0, 'parameters', 1], { type: 'coupon_code', coupon_code: 'X' }),
      'must NOT have unevaluated properties: coupon_code',
    ],
    ['a sub_type no page defines', withAt(VOICE_CALL, [0, 'sub_type'], 'phone_number'), 'must be equal to one of the allowed values'],
  ];

  it.each(MISTAKES)('%s', (_mistake, template, error) => {
    for (const path of ['messages', 'marketing_messages'] as const) {
      expect(sendErrors(template, path)).not.toEqual([]);
      expect(walkErrors(template, path).join('\n')).toContain(error);
    }
  });

  it('a GIF header on /messages: only the Marketing Messages API takes one', () => {
    expect(walkErrors(GIF)).toEqual([
      '/template has a GIF header, which only /marketing_messages takes [reference templates/components (Meta)]',
    ]);
    expect(sendErrors(GIF)).toEqual(walkErrors(GIF));
  });

  it('a GIF header without its link or id', () => {
    const template = withAt(GIF, [0, 'parameters', 0, 'gif'], {});
    expect(sendErrors(template, 'marketing_messages')).not.toEqual([]);
    expect(walkErrors(template, 'marketing_messages').join('\n')).toContain("must have required property 'link'");
  });
});

describe('the media upload and the template list', () => {
  const upload = (fields: string[]): CapturedExchange =>
    exchange({
      path: `/v25.0/${NUMBER}/media`,
      contentType: 'multipart/form-data; boundary=x',
      multipart: {
        fields: fields.map((name) => ({ name, value: name === 'type' ? 'image/png' : 'whatsapp' })),
        files: [{ name: 'file', filename: 'a.png', type: 'image/png', size: 16 }],
      },
    });

  it('an upload with file, type and messaging_product passes; a part the media page does not name does not', () => {
    expect(errorsOf(upload(['messaging_product', 'type']))).toEqual([]);
    expect(errorsOf(upload(['messaging_product', 'mime_type']))).toEqual([
      'multipart part mime_type is not declared for POST /{Version}/{Phone-Number-ID}/media',
    ]);
  });

  it('a listed VOICE_CALL button with its ttl_minutes passes; a misspelt one does not', () => {
    const list = (button: Json): CapturedExchange =>
      exchange({
        method: 'GET',
        path: `/v25.0/${WABA}/message_templates`,
        contentType: null,
        userAgent: null,
        status: 200,
        answer: {
          data: [
            {
              name: 'call_us',
              id: '1',
              language: 'en_US',
              status: 'APPROVED',
              category: 'MARKETING',
              components: [{ type: 'BUTTONS', buttons: [button] }],
            },
          ],
        },
      });
    expect(errorsOf(list({ type: 'VOICE_CALL', text: 'Call billing', ttl_minutes: 1440 }))).toEqual([]);
    expect(errorsOf(list({ type: 'VOICE_CALL', text: 'Call billing', ttl_minute: 1440 })).join('\n')).toContain(
      'must NOT have unevaluated properties: ttl_minute',
    );
  });
});
