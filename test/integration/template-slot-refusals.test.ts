import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest';
import { createCampaignDeps } from '../../src/app/create-campaign-deps.js';
import { sendCampaign } from '../../src/app/send-campaign.js';
import { buildTemplateRegistry } from '../../src/app/templates.js';
import type { CampaignFlags } from '../../src/campaigns/spec/campaign-flags.js';
import { FLAG_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { isAppError } from '../../src/errors/app-error.js';
import { ProblemsError } from '../../src/errors/problems-error.js';
import { phoneNumber } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { startSendRig, type SendRig } from '../support/send-rig.js';
import { mediaBytes } from '../unit/media/media-bytes.js';
import { MediaServer } from './media/media-server.js';

/**
 * Every refusal of a slot's value (a row refused with its own code, naming its column) and of a
 * mapping (the campaign refused whole), through `sendCampaign` as the CLI and the API call it,
 * on real Redis: in each case nothing is queued, and nothing reaches the sandbox.
 */
const HOUR = 3_600_000;

describe('refusals of template slots: nothing queued', () => {
  const media = new MediaServer();
  let rig: SendRig;

  beforeAll(async () => {
    await media.start();
    media
      .file('/banner.png', mediaBytes.png(), 'image/png')
      .file('/huge.mp4', mediaBytes.mp4(17 * 1024 * 1024), 'video/mp4')
      .file('/clip.mp4', mediaBytes.mp4(), 'video/mp4');
  });
  afterAll(async () => {
    await media.close();
  });
  beforeEach(async () => {
    rig = await startSendRig('slot-refusals', { MEDIA_ALLOW_PRIVATE_HOSTS: '1' });
  });
  afterEach(async () => {
    await rig.close();
  });

  const deps = () => ({
    ...createCampaignDeps(rig.context),
    openTemplates: () => buildTemplateRegistry(rig.context, { file: SAMPLE_TEMPLATES }),
  });

  async function csv(header: string, row: string): Promise<string> {
    const file = join(rig.dir, 'refused.csv');
    await writeFile(file, `${header}\n${row}\n`);
    return file;
  }

  /** Sends one row that must be refused: the campaign has it rejected with `code`, its detail naming `column`, and nothing queued. */
  async function refusedRow(flags: CampaignFlags, header: string, row: string, code: string, column: string): Promise<void> {
    const outcome = await sendCampaign(deps(), {
      flags: { language: 'en_US', ...flags },
      names: FLAG_FIELD_NAMES,
      file: await csv(header, row),
    });
    expect(outcome).toMatchObject({ rows: 1, queued: 0, valid: 0, rejected: 1, byReason: { [code]: 1 } });
    const rows = [];
    for await (const page of rig.context.ledger.rows(outcome.id)) rows.push(...page);
    expect(rows).toHaveLength(1);
    expect(rows[0]).toMatchObject({ status: 'rejected', errorCode: code });
    expect(rows[0]?.errorDetail).toContain(`column "${column}"`);
    expect((await rig.context.ledger.status(outcome.id))?.counts.queued).toBe(0);
    expect(rig.sandbox.accepted()).toHaveLength(0);
  }

  const coupon = (code: string): [CampaignFlags, string, string] => [
    { template: 'coupon_offer', param: { 'button.1.coupon_code': 'code', 'body.coupon_code': 'code', 'body.discount': 'off' } },
    'phone,code,off',
    `${phoneNumber(1)},${code},30%`,
  ];

  it('a coupon code longer than Meta’s 20 characters → COUPON_CODE_INVALID', async () => {
    await refusedRow(...coupon('ABCDEFGHIJKLMNOPQRSTU'), 'COUPON_CODE_INVALID', 'code');
  });

  it('a coupon code with a space → COUPON_CODE_INVALID', async () => {
    await refusedRow(...coupon('WINTER 25'), 'COUPON_CODE_INVALID', 'code');
  });

  it('an offer’s code over 15 characters, in a limited-time offer’s template → COUPON_CODE_INVALID', async () => {
    const end = Date.now() + 24 * HOUR;
    await refusedRow(
      {
        template: 'spring_offer_expiring',
        mediaBy: 'link',
        param: {
          'header.image': 'img',
          'body.1': 'name',
          'body.2': 'code',
          'lto.expiration': 'ends',
          'button.0.coupon_code': 'code',
          'button.1.url': 'slug',
        },
      },
      'phone,img,name,code,ends,slug',
      `${phoneNumber(2)},https://cdn.example.com/a.png,Ana,ABCDEFGHIJKLMNOP,${end},x`,
      'COUPON_CODE_INVALID',
      'code',
    );
  });

  const offer = (ends: string, extra: CampaignFlags = {}): [CampaignFlags, string, string] => [
    {
      template: 'flash_sale_lto',
      mediaBy: 'link',
      param: { 'header.video': 'clip', 'body.1': 'name', 'body.2': 'off', 'lto.expiration': 'ends', 'button.0.url': 'slug' },
      ...extra,
    },
    'phone,clip,name,off,ends,slug',
    `${phoneNumber(3)},https://cdn.example.com/a.mp4,Ana,40%,${ends},ana`,
  ];

  it('an offer that ended → OFFER_EXPIRY_PAST', async () => {
    await refusedRow(...offer(String(Date.now() - HOUR)), 'OFFER_EXPIRY_PAST', 'ends');
  });

  it('an offer end that is not a time (a day that does not exist) → OFFER_EXPIRY_INVALID', async () => {
    await refusedRow(...offer('2027-02-30T18:00:00+01:00'), 'OFFER_EXPIRY_INVALID', 'ends');
  });

  it('an offer that ends after the campaign’s rows expire → OFFER_EXPIRY_AFTER_CAMPAIGN', async () => {
    await refusedRow(...offer(String(Date.now() + 48 * HOUR), { validFor: '24h' }), 'OFFER_EXPIRY_AFTER_CAMPAIGN', 'ends');
  });

  it('coordinates out of range → LOCATION_INVALID', async () => {
    await refusedRow(
      { template: 'store_location', params: ['name', 'order'], param: { 'header.location': 'place' } },
      'phone,name,order,place',
      `${phoneNumber(4)},Ana,A-1,"91.5, 13.4"`,
      'LOCATION_INVALID',
      'place',
    );
  });

  it('a product ID with a space → PRODUCT_ID_INVALID', async () => {
    await refusedRow(
      { template: 'spm_single_product', param: { 'header.product': 'sku', catalog_id: 'catalog', code: 'code', percent: 'pct' } },
      'phone,sku,catalog,code,pct',
      `${phoneNumber(5)},nqry ix03ez,194836987003835,25OFF,25%`,
      'PRODUCT_ID_INVALID',
      'sku',
    );
  });

  it('multi-product sections over Meta’s limits (11 sections) → PRODUCT_SECTIONS_INVALID', async () => {
    const sections = Array.from({ length: 11 }, (_, i) => `S${i}: p${i}`).join('; ');
    await refusedRow(
      {
        template: 'mpm_abandoned_cart',
        param: { 'header.1': 'name', 'body.1': 'code', 'button.0.thumbnail': 'thumb', 'button.0.sections': 'items' },
      },
      'phone,name,code,thumb,items',
      `${phoneNumber(6)},Ana,10OFF,p0,"${sections}"`,
      'PRODUCT_SECTIONS_INVALID',
      'items',
    );
  });

  it('a Flow’s data that is not a JSON object → FLOW_DATA_INVALID', async () => {
    await refusedRow(
      { template: 'lead_flow', param: { 'button.0.flow_action_data': 'data' } },
      'phone,data',
      `${phoneNumber(7)},"[1,2]"`,
      'FLOW_DATA_INVALID',
      'data',
    );
  });

  it('an authentication code over Meta’s 15 characters → OTP_CODE_INVALID', async () => {
    await refusedRow(
      { template: 'verification_code', params: ['otp'] },
      'phone,otp',
      `${phoneNumber(8)},1234567890123456`,
      'OTP_CODE_INVALID',
      'otp',
    );
  });

  it('a media link that does not answer → MEDIA_UNREACHABLE', async () => {
    const flags = {
      template: 'flash_sale_lto',
      param: { 'header.video': 'clip', 'body.1': 'name', 'body.2': 'off', 'lto.expiration': 'ends', 'button.0.url': 'slug' },
    };
    const row = `${phoneNumber(9)},${media.url('/missing.mp4')},Ana,40%,${Date.now() + 24 * HOUR},ana`;
    await refusedMedia(flags, 'phone,clip,name,off,ends,slug', row, 'MEDIA_UNREACHABLE');
  });

  it('an image where the header is a video → MEDIA_TYPE_MISMATCH', async () => {
    const flags = {
      template: 'flash_sale_lto',
      param: { 'header.video': 'clip', 'body.1': 'name', 'body.2': 'off', 'lto.expiration': 'ends', 'button.0.url': 'slug' },
    };
    const row = `${phoneNumber(10)},${media.url('/banner.png')},Ana,40%,${Date.now() + 24 * HOUR},ana`;
    await refusedMedia(flags, 'phone,clip,name,off,ends,slug', row, 'MEDIA_TYPE_MISMATCH');
  });

  it('a video over Meta’s 16 MB → MEDIA_TOO_LARGE', async () => {
    const flags = {
      template: 'flash_sale_lto',
      param: { 'header.video': 'clip', 'body.1': 'name', 'body.2': 'off', 'lto.expiration': 'ends', 'button.0.url': 'slug' },
    };
    const row = `${phoneNumber(11)},${media.url('/huge.mp4')},Ana,40%,${Date.now() + 24 * HOUR},ana`;
    await refusedMedia(flags, 'phone,clip,name,off,ends,slug', row, 'MEDIA_TOO_LARGE');
  });

  /** A row refused for its media: rejected with the media's code, nothing queued, nothing uploaded. */
  async function refusedMedia(flags: CampaignFlags, header: string, row: string, code: string): Promise<void> {
    const outcome = await sendCampaign(deps(), {
      flags: { language: 'en_US', ...flags },
      names: FLAG_FIELD_NAMES,
      file: await csv(header, row),
    });
    expect(outcome).toMatchObject({ rows: 1, queued: 0, rejected: 1, byReason: { [code]: 1 } });
    expect((await rig.context.ledger.status(outcome.id))?.counts.queued).toBe(0);
    expect(rig.sandbox.stats()).toMatchObject({ requests: 0 });
  }

  /** A campaign refused whole: the code, the slot named, and no campaign created. */
  async function refusedCampaign(flags: CampaignFlags, header: string, row: string, code: string, says: string): Promise<void> {
    const campaign = 'refused-whole';
    const error = await sendCampaign(deps(), {
      flags: { language: 'en_US', campaign, ...flags },
      names: FLAG_FIELD_NAMES,
      file: await csv(header, row),
    }).then(
      () => undefined,
      (e: unknown) => e,
    );
    if (!isAppError(error)) throw new Error(`expected a refusal, got ${String(error)}`);
    expect(error.code).toBe(code);
    expect(error.message).toContain(says);
    if (error instanceof ProblemsError) expect(error.problems.map((p) => p.code)).toContain(code);
    expect(await rig.context.ledger.status(campaign)).toBeUndefined();
    expect(rig.sandbox.accepted()).toHaveLength(0);
  }

  it('a required slot no column fills (a coupon’s code) → TEMPLATE_SLOT_UNFILLED naming the slot and how to map it', async () => {
    await refusedCampaign(
      { template: 'coupon_offer', param: { 'body.coupon_code': 'code', 'body.discount': 'off' } },
      'phone,code,off',
      `${phoneNumber(12)},WINTER25,30%`,
      'TEMPLATE_SLOT_UNFILLED',
      'button.1.coupon_code (the coupon code the button copies) is required and no column fills it: ' +
        'map it with param button.1.coupon_code=COLUMN',
    );
  });

  it('a carousel whose cards are not mapped → TEMPLATE_SLOT_UNFILLED for each card’s header', async () => {
    await refusedCampaign(
      { template: 'product_card_carousel', param: { 'body.1': 'name', catalog_id: 'catalog' } },
      'phone,name,catalog',
      `${phoneNumber(13)},Ana,194836987003835`,
      'TEMPLATE_SLOT_UNFILLED',
      'card.1.header.product',
    );
  });

  it('an offer’s end left unmapped → TEMPLATE_SLOT_UNFILLED naming lto.expiration', async () => {
    await refusedCampaign(
      {
        template: 'flash_sale_lto',
        mediaBy: 'link',
        param: { 'header.video': 'clip', 'body.1': 'name', 'body.2': 'off', 'button.0.url': 'slug' },
      },
      'phone,clip,name,off,slug',
      `${phoneNumber(14)},https://cdn.example.com/a.mp4,Ana,40%,ana`,
      'TEMPLATE_SLOT_UNFILLED',
      'lto.expiration',
    );
  });

  it('a GIF header outside the Marketing Messages API → TEMPLATE_ENDPOINT_UNSUPPORTED', async () => {
    await refusedCampaign(
      { template: 'gif_promo', params: ['name', 'sale'], headerImageColumn: 'gif' },
      'phone,name,sale,gif',
      `${phoneNumber(15)},Ana,summer,${media.url('/clip.mp4')}`,
      'TEMPLATE_ENDPOINT_UNSUPPORTED',
      'endpoint marketing-messages',
    );
  });
});
