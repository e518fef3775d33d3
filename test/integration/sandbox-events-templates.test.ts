import { readFile } from 'node:fs/promises';
import { afterEach, describe, expect, it } from 'vitest';
import { templateListing, templatesJson } from '../../src/app/views/template-view.js';
import { templatesText } from '../../src/cli/format-templates.js';
import { DEFAULT_BUSINESS_ACCOUNT_IDS, loadTemplatesFile, type Sandbox } from '../../src/sandbox/index.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';
import { getJson, send, startTestSandbox, template, text, type ReplyBody } from './sandbox-helpers.js';

/**
 * The marketing kinds the samples gained: a media-card carousel and a limited-time offer with
 * a copy-code button, in the shape Meta's GET /{waba-id}/message_templates lists them. The list
 * loads and prints; the sandbox lists them as given, refuses a send that leaves out their
 * carousel, limited_time_offer or copy_code component as Meta refuses a malformed template send,
 * and takes one that fills them.
 */
const WABA = DEFAULT_BUSINESS_ACCOUNT_IDS[0] ?? '';
const CAROUSEL = 'spring_collection_carousel';
const OFFER = 'spring_offer_expiring';

/** A coupon template (Meta's templates/marketing-templates/coupon-templates): a body and one copy-code button. */
const COUPON = {
  name: 'winter_coupon',
  parameter_format: 'POSITIONAL',
  language: 'en_US',
  status: 'APPROVED',
  category: 'MARKETING',
  id: '1002003004009001',
  components: [
    { type: 'BODY', text: 'Use code {{1}} for {{2}} off your next order!', example: { body_text: [['WINTER25', '25%']] } },
    { type: 'BUTTONS', buttons: [{ type: 'COPY_CODE', text: 'Copy offer code', example: 'WINTER25' }] },
  ],
} as const;

function expectRefused(reply: { status: number; body: ReplyBody }, code: number, details: RegExp): void {
  expect(reply.status).toBe(400);
  expect(reply.body.error?.code).toBe(code);
  expect(reply.body.error?.error_data?.details).toMatch(details);
}

describe('sandbox events: carousel and limited-time offer templates', () => {
  let sandbox: Sandbox | undefined;

  afterEach(async () => {
    await sandbox?.close();
    sandbox = undefined;
  });

  it('load from the samples, print in `campaign templates list`, and are listed by the sandbox exactly as written', async () => {
    const file = JSON.parse(await readFile('samples/templates.json', 'utf8')) as { data: { name: string }[] };
    const written = file.data.filter((t) => t.name === CAROUSEL || t.name === OFFER);
    expect(written.map((t) => t.name)).toEqual([CAROUSEL, OFFER]);

    const templates = await loadTemplatesFile('samples/templates.json');
    const listing = templateListing(templates);
    // Each kind with every slot a send of it fills, cards and the offer's end included.
    expect(templatesText(listing)).toMatch(
      new RegExp(
        `${CAROUSEL}\\s+en_US\\s+APPROVED\\s+MARKETING\\s+media_carousel\\s+POSITIONAL\\s+` +
          'body\\.1 body\\.2 body\\.3 card\\.0\\.header\\.image card\\.0\\.button\\.0\\.payload\\? card\\.0\\.button\\.1\\.url ' +
          'card\\.1\\.header\\.image card\\.1\\.button\\.0\\.payload\\? card\\.1\\.button\\.1\\.url',
      ),
    );
    expect(templatesText(listing)).toMatch(
      new RegExp(
        `${OFFER}\\s+en_US\\s+APPROVED\\s+MARKETING\\s+limited_time_offer\\s+POSITIONAL\\s+` +
          'header\\.image body\\.1 body\\.2 lto\\.expiration button\\.0\\.coupon_code button\\.1\\.url',
      ),
    );
    const offer = templatesJson(listing).find((t) => t.name === OFFER);
    expect(offer?.preview.buttons.map((b) => b.type)).toEqual(['COPY_CODE', 'URL']);

    sandbox = await startTestSandbox();
    const listed = await getJson<{ data: MessageTemplate[] }>(`${sandbox.url}/v25.0/${WABA}/message_templates?limit=100`);
    expect(listed.status).toBe(200);
    expect(listed.body.data.filter((t) => t.name === CAROUSEL || t.name === OFFER)).toEqual(written);
  });

  it('refuses a carousel send without its cards (131008), and takes one that fills every card', async () => {
    sandbox = await startTestSandbox();
    const body = { type: 'body', parameters: [text('Ana'), text('25%'), text('SPRING25')] };
    expectRefused(await send(sandbox, template(CAROUSEL, [body])), 131008, /carousel: the template has 2 cards/);
    const card = (card_index: number, url = true) => ({
      card_index,
      components: [
        { type: 'header', parameters: [{ type: 'image', image: { link: `https://cdn.example.com/${card_index}.jpg` } }] },
        ...(url ? [{ type: 'button', sub_type: 'url', index: 1, parameters: [text(`item-${card_index}`)] }] : []),
      ],
    });
    // The quick-reply payload is optional (Meta's media-card carousel page); each card's URL variable is not.
    expect((await send(sandbox, template(CAROUSEL, [body, { type: 'carousel', cards: [card(0), card(1)] }]))).status).toBe(200);
    expectRefused(
      await send(sandbox, template(CAROUSEL, [body, { type: 'carousel', cards: [card(0), card(1, false)] }])),
      131008,
      /card 1 buttons: Button at index 1 of type Url requires a parameter/,
    );
    // The body is still checked first: a wrong count is Meta's 132000.
    expect((await send(sandbox, template(CAROUSEL, [{ type: 'body', parameters: [text('Ana')] }]))).body.error?.code).toBe(132000);
  });

  it('refuses a limited-time offer send without its offer (131008), and a coupon send without its code (131008)', async () => {
    sandbox = await startTestSandbox({
      templates: [...(await loadTemplatesFile('samples/templates.json')), COUPON as unknown as MessageTemplate],
    });
    const code = (index: string, coupon = 'SPRING25') => ({
      type: 'button',
      sub_type: 'copy_code',
      index,
      parameters: [{ type: 'coupon_code', coupon_code: coupon }],
    });
    const offerParts = [
      { type: 'header', parameters: [{ type: 'image', image: { link: 'https://cdn.example.com/offer.jpg' } }] },
      { type: 'body', parameters: [text('Ana'), text('SPRING25')] },
      { type: 'button', sub_type: 'url', index: '1', parameters: [text('SPRING25')] },
    ];
    expectRefused(await send(sandbox, template(OFFER, offerParts)), 131008, /limited_time_offer: the template has a limited-time offer/);
    const offer = {
      type: 'limited_time_offer',
      parameters: [{ type: 'limited_time_offer', limited_time_offer: { expiration_time_ms: 1_800_000_000_000 } }],
    };
    expectRefused(
      await send(sandbox, template(OFFER, [...offerParts, offer])),
      131008,
      /Button at index 0 of type CopyCode requires a parameter/,
    );
    expect((await send(sandbox, template(OFFER, [...offerParts, offer, code('0')]))).status).toBe(200);
    // An offer's code is at most 15 characters (Meta's limited-time offer page).
    expectRefused(await send(sandbox, template(OFFER, [...offerParts, offer, code('0', 'X'.repeat(16))])), 100, /at most|maximum is 15/);

    const couponBody = { type: 'body', parameters: [text('WINTER25'), text('25%')] };
    expectRefused(
      await send(sandbox, template(COUPON.name, [couponBody])),
      131008,
      /Button at index 0 of type CopyCode requires a parameter/,
    );
    // A coupon without an offer takes up to 20 characters (Meta's coupon page).
    expect((await send(sandbox, template(COUPON.name, [couponBody, code('0', 'W'.repeat(20))]))).status).toBe(200);
    expect((await send(sandbox, template('order_update', [{ type: 'body', parameters: [text('Ana'), text('A-1')] }]))).status).toBe(200);
  });
});
