import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCampaignDeps } from '../../src/app/create-campaign-deps.js';
import { sendCampaign } from '../../src/app/send-campaign.js';
import { buildTemplateRegistry } from '../../src/app/templates.js';
import type { CampaignFlags } from '../../src/campaigns/spec/campaign-flags.js';
import { FLAG_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import type { AcceptedMessage } from '../../src/sandbox/index.js';
import { phoneNumber } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';
import { waitFor } from '../support/waiting.js';
import { MediaServer } from './media/media-server.js';
import { mediaBytes } from '../unit/media/media-bytes.js';

/**
 * One campaign of each template kind, end to end: `sendCampaign` as the CLI and the API call it
 * (the sample templates, `param` SLOT=COLUMN mappings), the real worker, the sandbox. Each send
 * the sandbox accepted is compared, whole, with the shape of the `template` object on Meta's page
 * for its kind (cited per case), filled with the row's values. Media headers go by ID: each
 * distinct file is fetched from a local server and uploaded once (MEDIA_ALLOW_PRIVATE_HOSTS).
 */
const ID: unknown = expect.stringMatching(/^\d+$/);
const IN_TWO_DAYS = Date.now() + 2 * 86_400_000;

describe('a campaign of every template kind, checked send by send against Meta’s shapes', () => {
  const media = new MediaServer();
  let rig: SendRig;

  beforeAll(async () => {
    await media.start();
    media
      .file('/clip.mp4', mediaBytes.mp4(), 'video/mp4')
      .file('/invoice.pdf', mediaBytes.pdf(), 'application/pdf')
      .file('/sale.mp4', mediaBytes.mp4(), 'video/mp4');
  });
  afterAll(async () => {
    await media.close();
  });
  beforeEach(async () => {
    rig = await startSendRig('kinds', { MEDIA_ALLOW_PRIVATE_HOSTS: '1' });
  });
  afterEach(async () => {
    await rig.close();
  });

  /** Sends the CSV with these flags and waits for every row's answer; the sends the sandbox accepted for it. */
  async function send(flags: CampaignFlags, header: string, rows: string[]): Promise<AcceptedMessage[]> {
    const file = join(rig.dir, `${flags.template ?? 'text'}.csv`);
    await writeFile(file, [header, ...rows].join('\n') + '\n');
    const deps = {
      ...createCampaignDeps(rig.context),
      openTemplates: () => buildTemplateRegistry(rig.context, { file: SAMPLE_TEMPLATES }),
    };
    const outcome = await sendCampaign(deps, { flags: { language: 'en_US', ...flags }, names: FLAG_FIELD_NAMES, file });
    expect(outcome).toMatchObject({ queued: rows.length, rejected: 0, skipped: 0 });
    await rig.startWorker();
    const status = await waitFor(() => rig.context.ledger.status(outcome.id), {
      what: `campaign ${outcome.id} completed`,
      until: (s) => s?.state === 'completed',
      timeoutMs: 20_000,
    });
    expect(status?.counts).toMatchObject({ sent: rows.length, failed: 0 });
    const recipients = new Set(rows.map((row) => row.split(',')[0]));
    const accepted = rig.sandbox.accepted().filter((m) => recipients.has(m.to));
    // One send per row: each test compares every one of them with its kind's shape.
    expect(accepted).toHaveLength(rows.length);
    return accepted;
  }

  /** Each accepted send's `template` object, by recipient. */
  function templatesOf(accepted: readonly AcceptedMessage[]): Map<string, unknown> {
    return new Map(accepted.map((m) => [m.to, (m.body as { template: unknown }).template]));
  }

  it('coupon code (templates/marketing-templates/coupon-templates): named body and the copy_code button’s coupon_code', async () => {
    const sent = await send(
      { template: 'coupon_offer', param: { 'button.1.coupon_code': 'code', 'body.coupon_code': 'code', 'body.discount': 'off' } },
      'phone,code,off',
      [`${phoneNumber(1)},WINTER-25,30%`, `${phoneNumber(2)},SPRING10,10%`],
    );
    expect(sent).toHaveLength(2);
    const coupon = (code: string, off: string) => ({
      name: 'coupon_offer',
      language: { code: 'en_US' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', parameter_name: 'coupon_code', text: code },
            { type: 'text', parameter_name: 'discount', text: off },
          ],
        },
        { type: 'button', sub_type: 'copy_code', index: '1', parameters: [{ type: 'coupon_code', coupon_code: code }] },
      ],
    });
    expect(Object.fromEntries(templatesOf(sent))).toStrictEqual({
      [phoneNumber(1)]: coupon('WINTER-25', '30%'),
      [phoneNumber(2)]: coupon('SPRING10', '10%'),
    });
  });

  it('limited-time offer (…/limited-time-offer-templates): video header by ID, body, its expiration_time_ms, URL button', async () => {
    const link = media.url('/clip.mp4');
    const sent = await send(
      {
        template: 'flash_sale_lto',
        param: { 'header.video': 'clip', 'body.1': 'name', 'body.2': 'off', 'lto.expiration': 'ends', 'button.0.url': 'slug' },
      },
      'phone,clip,name,off,ends,slug',
      [
        `${phoneNumber(3)},${link},Ana,40%,${IN_TWO_DAYS},ana-40`,
        `${phoneNumber(4)},${link},Bo,20%,${new Date(IN_TWO_DAYS).toISOString()},bo`,
      ],
    );
    // The offer's end written as ISO 8601 (the second row) is sent as the same instant in milliseconds.
    const offer = (name: string, off: string, slug: string) => ({
      name: 'flash_sale_lto',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'video', video: { id: ID } }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: name },
            { type: 'text', text: off },
          ],
        },
        {
          type: 'limited_time_offer',
          parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: IN_TWO_DAYS } }],
        },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: slug }] },
      ],
    });
    expect(Object.fromEntries(templatesOf(sent))).toStrictEqual({
      [phoneNumber(3)]: offer('Ana', '40%', 'ana-40'),
      [phoneNumber(4)]: offer('Bo', '20%', 'bo'),
    });
  });

  it('media-card carousel (…/media-card-carousel-templates): each card with card_index, its video by ID, body, payload, URL', async () => {
    const link = media.url('/clip.mp4');
    const param: Record<string, string> = { 'body.1': 'name' };
    for (const card of [0, 1, 2]) {
      Object.assign(param, {
        [`card.${card}.header.video`]: 'clip',
        [`card.${card}.body.1`]: `item${card}`,
        [`card.${card}.body.2`]: `price${card}`,
        [`card.${card}.button.0.payload`]: `more${card}`,
        [`card.${card}.button.1.url`]: `slug${card}`,
      });
    }
    const header = 'phone,name,clip,item0,price0,more0,slug0,item1,price1,more1,slug1,item2,price2,more2,slug2';
    const sent = await send({ template: 'carousel_products_media', param }, header, [
      `${phoneNumber(5)},Ana,${link},Shirt,£35,more-shirts,shirt,Hat,£12,more-hats,hat,Bag,£40,more-bags,bag`,
    ]);
    const card = (index: number, item: string, price: string, payload: string, slug: string) => ({
      card_index: index,
      components: [
        { type: 'header', parameters: [{ type: 'video', video: { id: ID } }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: item },
            { type: 'text', text: price },
          ],
        },
        { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload }] },
        { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: slug }] },
      ],
    });
    expect(templatesOf(sent).get(phoneNumber(5))).toStrictEqual({
      name: 'carousel_products_media',
      language: { code: 'en_US' },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: 'Ana' }] },
        {
          type: 'carousel',
          cards: [
            card(0, 'Shirt', '£35', 'more-shirts', 'shirt'),
            card(1, 'Hat', '£12', 'more-hats', 'hat'),
            card(2, 'Bag', '£40', 'more-bags', 'bag'),
          ],
        },
      ],
    });
  });

  it('product-card carousel (catalogs/product-card-carousel-template-messages): product headers with catalog_id', async () => {
    const sent = await send(
      {
        template: 'product_card_carousel',
        param: { 'body.1': 'name', catalog_id: 'catalog', 'card.0.header.product': 'p0', 'card.1.header.product': 'p1' },
      },
      'phone,name,catalog,p0,p1',
      [`${phoneNumber(6)},Ana,194836987003835,vrpj01fvwp,va2l5ioeat`],
    );
    const product = (id: string) => ({
      type: 'header',
      parameters: [{ type: 'product', product: { product_retailer_id: id, catalog_id: '194836987003835' } }],
    });
    expect(templatesOf(sent).get(phoneNumber(6))).toStrictEqual({
      name: 'product_card_carousel',
      language: { code: 'en_US' },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: 'Ana' }] },
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

  it('catalog (catalogs/catalog-template-messages): the action’s thumbnail_product_retailer_id', async () => {
    const sent = await send(
      { template: 'catalog_intro', params: ['a', 'b', 'c'], param: { 'button.0.thumbnail': 'thumb' } },
      'phone,a,b,c,thumb',
      [`${phoneNumber(7)},£10,£40,3,2lc20305pt`],
    );
    expect(templatesOf(sent).get(phoneNumber(7))).toStrictEqual({
      name: 'catalog_intro',
      language: { code: 'en_US' },
      components: [
        {
          type: 'body',
          parameters: [
            { type: 'text', text: '£10' },
            { type: 'text', text: '£40' },
            { type: 'text', text: '3' },
          ],
        },
        {
          type: 'button',
          sub_type: 'catalog',
          index: '0',
          parameters: [{ type: 'action', action: { thumbnail_product_retailer_id: '2lc20305pt' } }],
        },
      ],
    });
  });

  it('multi-product (catalogs/mpm-template-messages): text header, body and the mpm action’s sections', async () => {
    const sent = await send(
      {
        template: 'mpm_abandoned_cart',
        param: { 'header.1': 'name', 'body.1': 'code', 'button.0.thumbnail': 'thumb', 'button.0.sections': 'items' },
      },
      'phone,name,code,thumb,items',
      [`${phoneNumber(8)},Ana,10OFF,2lc20305pt,"Popular Bundles: 2lc20305pt, nseiw1x3ch; Premium Packages: n6k6x0y7oe"`],
    );
    expect(templatesOf(sent).get(phoneNumber(8))).toStrictEqual({
      name: 'mpm_abandoned_cart',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'text', text: 'Ana' }] },
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

  it('single product (catalogs/spm-template-messages): the product header and a named body; the View button takes nothing', async () => {
    const sent = await send(
      { template: 'spm_single_product', param: { 'header.product': 'sku', catalog_id: 'catalog', code: 'code', percent: 'pct' } },
      'phone,sku,catalog,code,pct',
      [`${phoneNumber(9)},nqryix03ez,194836987003835,25OFF,25%`],
    );
    expect(templatesOf(sent).get(phoneNumber(9))).toStrictEqual({
      name: 'spm_single_product',
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

  it('authentication (templates/authentication-templates): the code once in the file, twice in the send', async () => {
    const sent = await send({ template: 'verification_code', params: ['otp'] }, 'phone,otp', [`${phoneNumber(10)},J$FpnYnP`]);
    expect(templatesOf(sent).get(phoneNumber(10))).toStrictEqual({
      name: 'verification_code',
      language: { code: 'en_US' },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: 'J$FpnYnP' }] },
        { type: 'button', sub_type: 'url', index: '0', parameters: [{ type: 'text', text: 'J$FpnYnP' }] },
      ],
    });
  });

  it('Flow (flows/guides/sendingaflow): the flow button’s action with flow_token and flow_action_data', async () => {
    const sent = await send(
      { template: 'lead_flow', param: { 'button.0.flow_token': 'token', 'button.0.flow_action_data': 'data' } },
      'phone,token,data',
      [`${phoneNumber(11)},row-000123,"{""offer"":""A"",""step"":1}"`],
    );
    expect(templatesOf(sent).get(phoneNumber(11))).toStrictEqual({
      name: 'lead_flow',
      language: { code: 'en_US' },
      components: [
        {
          type: 'button',
          sub_type: 'flow',
          index: '0',
          parameters: [{ type: 'action', action: { flow_token: 'row-000123', flow_action_data: { offer: 'A', step: 1 } } }],
        },
      ],
    });
  });

  it('location header (templates/utility-templates/location-templates): latitude and longitude as strings, name and address', async () => {
    const sent = await send(
      {
        template: 'store_location',
        params: ['name', 'order'],
        param: { 'header.location': 'place', 'header.location.name': 'store', 'header.location.address': 'address' },
      },
      'phone,name,order,place,store,address',
      [`${phoneNumber(12)},Ana,A-10023,"37.44211676562361, -122.16155960083124",Philz Coffee,"101 Forest Ave, Palo Alto"`],
    );
    expect(templatesOf(sent).get(phoneNumber(12))).toStrictEqual({
      name: 'store_location',
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
                address: '101 Forest Ave, Palo Alto',
              },
            },
          ],
        },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'text', text: 'A-10023' },
          ],
        },
      ],
    });
  });

  it('document header (templates/components): the PDF by ID with its file name', async () => {
    const sent = await send(
      {
        template: 'invoice_document',
        params: ['name', 'invoice'],
        headerImageColumn: 'pdf',
        param: { 'header.document.filename': 'file' },
      },
      'phone,name,invoice,pdf,file',
      [`${phoneNumber(13)},Ana,INV-2041,${media.url('/invoice.pdf')},INV-2041.pdf`],
    );
    expect(templatesOf(sent).get(phoneNumber(13))).toStrictEqual({
      name: 'invoice_document',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'document', document: { id: ID, filename: 'INV-2041.pdf' } }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'text', text: 'INV-2041' },
          ],
        },
      ],
    });
  });

  it('GIF header (marketing-messages): through /marketing_messages only, the MP4 by ID', async () => {
    const sent = await send(
      { template: 'gif_promo', endpoint: 'marketing-messages', params: ['name', 'sale'], headerImageColumn: 'gif' },
      'phone,name,sale,gif',
      [`${phoneNumber(14)},Ana,summer,${media.url('/sale.mp4')}`],
    );
    expect(sent.map((m) => m.endpoint)).toEqual(['marketing_messages']);
    expect(templatesOf(sent).get(phoneNumber(14))).toStrictEqual({
      name: 'gif_promo',
      language: { code: 'en_US' },
      components: [
        { type: 'header', parameters: [{ type: 'gif', gif: { id: ID } }] },
        {
          type: 'body',
          parameters: [
            { type: 'text', text: 'Ana' },
            { type: 'text', text: 'summer' },
          ],
        },
      ],
    });
  });

  it('quick-reply payloads (templates/components): each mapped button’s payload; an unmapped one is left out', async () => {
    const sent = await send(
      { template: 'quick_reply_survey', params: ['name'], param: { 'button.0.payload': 'great', 'button.2.payload': 'talk' } },
      'phone,name,great,talk',
      [`${phoneNumber(15)},Ana,survey-7/great,survey-7/talk`],
    );
    expect(templatesOf(sent).get(phoneNumber(15))).toStrictEqual({
      name: 'quick_reply_survey',
      language: { code: 'en_US' },
      components: [
        { type: 'body', parameters: [{ type: 'text', text: 'Ana' }] },
        { type: 'button', sub_type: 'quick_reply', index: '0', parameters: [{ type: 'payload', payload: 'survey-7/great' }] },
        { type: 'button', sub_type: 'quick_reply', index: '2', parameters: [{ type: 'payload', payload: 'survey-7/talk' }] },
      ],
    });
  });
});
