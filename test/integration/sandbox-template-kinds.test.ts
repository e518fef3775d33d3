import { readFile } from 'node:fs/promises';
import { request } from 'undici';
import { afterEach, describe, expect, it } from 'vitest';
import { DEFAULT_BUSINESS_ACCOUNT_IDS, type Sandbox } from '../../src/sandbox/index.js';
import { TEMPLATE_KINDS } from '../../src/templates/slots/template-slot.js';
import { templateSlots } from '../../src/templates/slots/template-slots.js';
import { templateListSchema, type MessageTemplate } from '../../src/templates/template-schema.js';
import { FAST, SECRET, startReceiver, statusesOf, type Receiver } from './sandbox-events-receiver.js';
import {
  PHONE_NUMBER_ID,
  TOKEN,
  getJson,
  send,
  startTestSandbox,
  template,
  text,
  type JsonReply,
  type ReplyBody,
} from './sandbox-helpers.js';

/**
 * The sandbox plays every template kind as Meta's pages document it, over HTTP: its default list
 * (samples/templates.json) holds one approved template of each kind, as Meta's GET lists it; a
 * send of each in Meta's documented shape is taken; a send lacking what its kind requires is
 * refused in Meta's envelope; media goes by uploaded ID, and an ID naming no upload of the
 * sending number is taken and then reported `failed` with 131053.
 */
let sandbox: Sandbox | undefined;
let receiver: Receiver | undefined;

afterEach(async () => {
  await sandbox?.close();
  await receiver?.close();
  sandbox = undefined;
  receiver = undefined;
});

const WABA = DEFAULT_BUSINESS_ACCOUNT_IDS[0] ?? '';
const HREF = '/documentation/business-messaging/whatsapp/support/error-codes';
const PNG = Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex');

const button = (subType: string, index: unknown, ...parameters: unknown[]) => ({ type: 'button', sub_type: subType, index, parameters });
const action = (value: Record<string, unknown>) => ({ type: 'action', action: value });
const body = (...parameters: unknown[]) => ({ type: 'body', parameters });
const header = (parameter: unknown) => ({ type: 'header', parameters: [parameter] });
const product = (id: string) => ({ type: 'product', product: { product_retailer_id: id, catalog_id: '194836987003835' } });
const offer = {
  type: 'limited_time_offer',
  parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: 1209600000 } }],
};
const imageCard = (index: number, id: string) => ({
  card_index: index,
  components: [
    header({ type: 'image', image: { id } }),
    button('quick_reply', '0', { type: 'payload', payload: `more-${index}` }),
    button('url', '1', text(`item-${index}`)),
  ],
});
const videoCard = (index: number) => ({
  card_index: index,
  components: [
    header({ type: 'video', video: { link: `https://cdn.example.com/${index}.mp4` } }),
    body(text('Linen shirt'), text('£35')),
    button('quick_reply', 0, { type: 'payload', payload: `more-${index}` }),
    button('url', 1, text(`item-${index}`)),
  ],
});

/** One send of each new sample in the shape of Meta's page for its kind (/tmp research: coupon, LTO, carousels, catalogs, auth, Flow …). */
const SENDS: [string, unknown[]][] = [
  [
    'coupon_offer',
    [
      body(text('WINTER25', 'coupon_code'), text('30%', 'discount')),
      button('copy_code', 1, { type: 'coupon_code', coupon_code: 'WINTER25' }),
    ],
  ],
  [
    'flash_sale_lto',
    [
      header({ type: 'video', video: { link: 'https://cdn.example.com/flash.mp4' } }),
      body(text('Ana'), text('40%')),
      offer,
      button('url', 0, text('ana-40')),
    ],
  ],
  [
    'spring_offer_expiring',
    [
      header({ type: 'image', image: { link: 'https://cdn.example.com/o.jpg' } }),
      body(text('Pablo'), text('CARIBE25')),
      offer,
      button('copy_code', 0, { type: 'coupon_code', coupon_code: 'CARIBE25' }),
      button('url', 1, text('n3mtql')),
    ],
  ],
  ['carousel_products_media', [body(text('Ana')), { type: 'carousel', cards: [videoCard(0), videoCard(1), videoCard(2)] }]],
  [
    'spring_collection_carousel',
    [
      body(text('Pablo'), text('20%'), text('20OFF')),
      { type: 'carousel', cards: [imageCard(0, '1558081531584829'), imageCard(1, '861236878885705')] },
    ],
  ],
  [
    'product_card_carousel',
    [
      body(text('Pablo')),
      {
        type: 'carousel',
        cards: ['vrpj01fvwp', 'va2l5ioeat', 'sqpjv0mgde'].map((id, i) => ({ card_index: i, components: [header(product(id))] })),
      },
    ],
  ],
  [
    'catalog_intro',
    [body(text('100'), text('400'), text('3')), button('CATALOG', 0, action({ thumbnail_product_retailer_id: '2lc20305pt' }))],
  ],
  [
    'mpm_abandoned_cart',
    [
      header(text('Pablo')),
      body(text('10OFF')),
      button(
        'mpm',
        0,
        action({
          thumbnail_product_retailer_id: '2lc20305pt',
          sections: [
            { title: 'Popular Bundles', product_items: [{ product_retailer_id: '2lc20305pt' }, { product_retailer_id: 'nseiw1x3ch' }] },
            { title: 'Premium Packages', product_items: [{ product_retailer_id: 'n6k6x0y7oe' }] },
          ],
        }),
      ),
    ],
  ],
  ['spm_single_product', [header(product('nqryix03ez')), body(text('25OFF', 'code'), text('25%', 'percent'))]],
  ['verification_code', [body(text('J$FpnYnP')), button('url', '0', text('J$FpnYnP'))]],
  ['lead_flow', [button('flow', '0', action({ flow_token: 'FLOW_TOKEN', flow_action_data: {} }))]],
  [
    'store_location',
    [
      header({
        type: 'location',
        location: {
          latitude: '37.44211676562361',
          longitude: '-122.16155960083124',
          name: 'Philz Coffee',
          address: '101 Forest Ave, Palo Alto, CA 94301',
        },
      }),
      body(text('Ana'), text('A-10023')),
    ],
  ],
  [
    'invoice_document',
    [
      header({ type: 'document', document: { link: 'https://cdn.example.com/invoice.pdf', filename: 'invoice.pdf' } }),
      body(text('Ana'), text('INV-2041')),
    ],
  ],
  ['quick_reply_survey', [body(text('Ana')), button('quick_reply', '0', { type: 'payload', payload: 'ORDER_DETAILS_CLICKED' })]],
];
const GIF_SEND = [header({ type: 'gif', gif: { link: 'https://cdn.example.com/sale.mp4' } }), body(text('Ana'), text('summer'))];

async function marketing(s: Sandbox, message: unknown): Promise<JsonReply> {
  const response = await request(`${s.url}/v25.0/${PHONE_NUMBER_ID}/marketing_messages`, {
    method: 'POST',
    headers: { 'content-type': 'application/json', authorization: `Bearer ${TOKEN}` },
    body: JSON.stringify(message),
  });
  return { status: response.statusCode, body: (await response.body.json()) as ReplyBody };
}

async function uploadPng(s: Sandbox, phoneNumberId = PHONE_NUMBER_ID): Promise<string> {
  const form = new FormData();
  form.append('messaging_product', 'whatsapp');
  form.append('file', new Blob([PNG], { type: 'image/png' }), 'a.png');
  const response = await fetch(`${s.url}/v25.0/${phoneNumberId}/media`, {
    method: 'POST',
    body: form,
    headers: { authorization: `Bearer ${TOKEN}` },
  });
  return ((await response.json()) as { id: string }).id;
}

describe('sandbox template kinds (Meta: the page of each kind)', () => {
  it("lists one approved template of each kind, as Meta's GET lists them; templateSlots reads each as expected", async () => {
    const samples = templateListSchema.parse(JSON.parse(await readFile('samples/templates.json', 'utf8'))).data;
    sandbox = await startTestSandbox();
    const listed = await getJson<{ data: MessageTemplate[] }>(`${sandbox.url}/v25.0/${WABA}/message_templates?limit=100`);
    expect(listed.body.data.map((t) => t.name)).toEqual(samples.map((t) => t.name));
    const approved = samples.filter((t) => t.status === 'APPROVED');
    const kinds = new Set(approved.map((t) => templateSlots(t).kind));
    expect([...TEMPLATE_KINDS].filter((kind) => !kinds.has(kind))).toEqual([]);
    const formats = approved.flatMap((t) => t.components.flatMap((c) => (c.type === 'HEADER' ? [c.format] : [])));
    expect(formats).toEqual(expect.arrayContaining(['LOCATION', 'DOCUMENT', 'GIF', 'PRODUCT', 'IMAGE', 'VIDEO', 'TEXT']));

    const slots = (name: string) => {
      const found = approved.find((t) => t.name === name);
      if (found === undefined) throw new Error(`no ${name} in the samples`);
      return templateSlots(found);
    };
    const names = (name: string) =>
      slots(name).slots.map((s) => `${s.name}${s.required ? '' : '?'}${s.sameAs === undefined ? '' : `=${s.sameAs}`}`);
    expect(slots('coupon_offer').kind).toBe('coupon_code');
    expect(names('coupon_offer')).toEqual(['body.coupon_code', 'body.discount', 'button.0.payload?', 'button.1.coupon_code']);
    expect(names('flash_sale_lto')).toEqual(['header.video', 'body.1', 'body.2', 'lto.expiration', 'button.0.url']);
    expect(names('product_card_carousel')).toEqual(['catalog_id', 'body.1', 'card.0.header.product', 'card.1.header.product']);
    expect(names('catalog_intro')).toEqual(['body.1', 'body.2', 'body.3', 'button.0.thumbnail?']);
    expect(names('mpm_abandoned_cart')).toEqual(['header.1', 'body.1', 'button.0.thumbnail', 'button.0.sections']);
    expect(names('spm_single_product')).toEqual(['header.product', 'catalog_id', 'body.code', 'body.percent']);
    expect(names('verification_code')).toEqual(['body.1', 'button.0.code=body.1']);
    expect(names('lead_flow')).toEqual(['button.0.flow_token?', 'button.0.flow_action_data?']);
    expect(names('store_location')).toEqual(['header.location', 'header.location.name?', 'header.location.address?', 'body.1', 'body.2']);
    expect(names('invoice_document')).toEqual(['header.document', 'header.document.filename?', 'body.1', 'body.2']);
    expect(names('gif_promo')).toEqual(['header.gif', 'body.1', 'body.2']);
    expect(names('quick_reply_survey')).toEqual(['body.1', 'button.0.payload?', 'button.1.payload?', 'button.2.payload?']);
    expect(
      slots('carousel_products_media')
        .slots.filter((s) => s.card === 2)
        .map((s) => s.name),
    ).toEqual(['card.2.header.video', 'card.2.body.1', 'card.2.body.2', 'card.2.button.0.payload', 'card.2.button.1.url']);
    // Authentication as a captured GET lists it: a URL button whose url carries otp_type and the code's {{1}}.
    const auth = listed.body.data.find((t) => t.name === 'verification_code');
    expect(auth?.category).toBe('AUTHENTICATION');
    expect(JSON.stringify(auth?.components)).toMatch(/"type":"URL".*otp_type=COPY_CODE.*code=otp\{\{1\}\}/);
  });

  it("takes a send of every kind in Meta's documented shape, and a GIF header through /marketing_messages", async () => {
    sandbox = await startTestSandbox();
    for (const [name, components] of SENDS) {
      const reply = await send(sandbox, template(name, components));
      expect(reply.body.error, name).toBeUndefined();
      expect(reply.body.messages?.[0]?.message_status, name).toBe('accepted');
    }
    const gif = await marketing(sandbox, template('gif_promo', GIF_SEND));
    expect(gif.status).toBe(200);
    expect(sandbox.accepted()).toHaveLength(SENDS.length + 1);
  });

  it("refuses a send lacking what its kind requires, in Meta's error envelope", async () => {
    sandbox = await startTestSandbox();
    const missingCode = await send(sandbox, template('coupon_offer', [body(text('WINTER25', 'coupon_code'), text('30%', 'discount'))]));
    expect(missingCode).toEqual({
      status: 400,
      body: {
        error: {
          message: '(#131008) Required parameter is missing',
          type: 'OAuthException',
          code: 131008,
          error_data: { messaging_product: 'whatsapp', details: 'buttons: Button at index 1 of type CopyCode requires a parameter' },
          fbtrace_id: expect.any(String) as unknown,
        },
      },
    });
    const noProduct = await send(sandbox, template('spm_single_product', [body(text('25OFF', 'code'), text('25%', 'percent'))]));
    expect(noProduct.body.error).toMatchObject({
      code: 132012,
      message: '(#132012) Parameter format does not match format in the created template',
      error_data: { details: 'header: Format mismatch, expected PRODUCT, received UNKNOWN' },
    });
    const gifOnMessages = await send(sandbox, template('gif_promo', GIF_SEND));
    expect(gifOnMessages.body.error).toMatchObject({ code: 100, message: '(#100) Invalid parameter' });
    expect(gifOnMessages.body.error?.error_data?.details).toMatch(/Marketing Messages API/);
    const twice = await send(sandbox, template('verification_code', [body(text('123456')), button('url', '0', text('654321'))]));
    expect(twice.body.error?.code).toBe(100);
    expect(sandbox.accepted()).toHaveLength(0);
  });

  it('sends media by uploaded ID; an unknown ID, or one of another number, is accepted and fails by webhook with 131053', async () => {
    const OTHER = '106540352242999';
    const r = (receiver = await startReceiver());
    sandbox = await startTestSandbox({
      phoneNumberIds: [PHONE_NUMBER_ID, OTHER],
      messagesPerSecond: 0,
      webhooks: { url: r.url, appSecret: SECRET, ...FAST },
    });
    const id = await uploadPng(sandbox);
    const promo = (mediaId: string) =>
      template('spring_promo', [header({ type: 'image', image: { id: mediaId } }), body(text('Ana'), text('25%'))]);
    const replies = [
      await send(sandbox, promo(id)),
      await send(sandbox, promo('1037543291543636')),
      await send(sandbox, promo(id), { phoneNumberId: OTHER }),
    ];
    expect(replies.map((reply) => reply.status)).toEqual([200, 200, 200]);
    const wamids = replies.map((reply) => reply.body.messages?.[0]?.id ?? '');
    const final = (wamid: string) => statusesOf(r.posts).find((s) => s.id === wamid && s.status !== 'sent');
    await r.until('a final status for each send', () => wamids.every((wamid) => final(wamid) !== undefined));
    expect(wamids.map((wamid) => final(wamid)?.status)).toEqual(['delivered', 'failed', 'failed']);
    expect(final(wamids[1] ?? '')?.errors).toEqual([
      {
        code: 131053,
        title: 'Media upload error',
        message: 'Media upload error',
        error_data: {
          details: expect.stringMatching(
            /^Unable to upload the media used in the message: media ID 1037543291543636 names no upload/,
          ) as unknown,
        },
        href: HREF,
      },
    ]);
    expect(sandbox.stats().failedByCode).toEqual({ '131053': 2 });
    expect(sandbox.accepted().map((m) => m.failure?.cause)).toEqual([undefined, 'unknownMedia', 'unknownMedia']);
  });
});
