import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { silentLogger } from '../../src/logging/logger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { phoneNumber, tempDir } from '../support/csv-files.js';
import { FaultHarness } from '../support/fault-harness.js';
import { attributes, count, text, texts, value } from '../support/page-reads.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { closeTestBrowser, launchTestBrowser } from '../support/test-browser.js';
import { mediaBytes } from '../unit/media/media-bytes.js';
import { MediaServer } from './media/media-server.js';

/**
 * The New campaign page in headless Chromium, with templates of the kinds that need more than
 * variables, against `campaign serve` (in this process) and `campaign worker` sending to the
 * sandbox: a limited-time offer's preview (its coupon code, its countdown running), then the
 * sample media-card carousel (`carousel_products_media`, three video cards): every slot mapped
 * from columns not named as them, the cards previewed side by side with their videos and
 * bodies (a cell of markup shown as text), dry-run, confirmed, and every row sent with its
 * cards. The cards' videos come from a local server; the service fetches and uploads each
 * once (MEDIA_ALLOW_PRIVATE_HOSTS: the server is on 127.0.0.1), and the rows send their IDs.
 */
const USER = 'operator';
const PASSWORD = 'carousel-page-test-password';
const ROWS = 3;
const CARDS = ['A', 'B', 'C'] as const;
/** A cell of markup: the preview shows it as text, and the service sends it as text. */
const MARKUP = 'Shirt <img src=x onerror=alert(1)>';
/** A media ID the sandbox gave the service's upload. */
const MEDIA_ID: unknown = expect.stringMatching(/^\d+$/);
const ENDS = new Date(Date.now() + 2 * 86_400_000).toISOString();

function csvText(): string {
  const cardColumns = CARDS.flatMap((c) => [`Clip ${c}`, `Item ${c}`, `Price ${c}`, c === 'C' ? 'card.2.button.1.url' : `Slug ${c}`]);
  const lines = [['Mobile', 'Customer', 'Ends', 'Code', 'More A', ...cardColumns].join(',')];
  for (let row = 1; row <= ROWS; row++) {
    const cards = CARDS.flatMap((c, i) => [
      `{clip${c}}`,
      row === 1 && i === 0 ? MARKUP : `Item ${c}${row}`,
      `£${row}${i}`,
      `slug-${c}${row}`,
    ]);
    lines.push([phoneNumber(row), `Name${row}`, ENDS, `CODE${row}`, `more-${row}`, ...cards].join(','));
  }
  return lines.join('\n') + '\n';
}

describe('the New campaign page in headless Chromium: the kinds of template', () => {
  const media = new MediaServer();
  let rig: FaultHarness;
  let service: RunningService | undefined;
  let browser: Browser | undefined;
  let dir: { dir: string; cleanup: () => Promise<void> };

  beforeAll(async () => {
    dir = await tempDir();
    await media.start();
    for (const c of CARDS) media.file(`/${c}.mp4`, mediaBytes.mp4(), 'video/mp4');
    rig = await FaultHarness.start({
      label: 'dashboard-carousel',
      rows: 1,
      sendRate: 20,
      sandboxMps: 0,
      webhooks: true,
      workerEnv: { TEMPLATES_FILE: SAMPLE_TEMPLATES, REPORTS_DIR: join(dir.dir, 'reports'), MEDIA_ALLOW_PRIVATE_HOSTS: '1' },
    });
    // The harness's service takes the sandbox's webhooks; this one, on the same Redis and prefix,
    // serves the page and creates the campaign: it uploads the media, so it reaches the sandbox.
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      {
        ...rig.env,
        DASHBOARD_USER: USER,
        DASHBOARD_PASSWORD: PASSWORD,
        WHATSAPP_APP_SECRET: 'carousel-app-secret',
        WEBHOOK_VERIFY_TOKEN: 'carousel-verify-token',
        LOG_LEVEL: 'warn',
      },
      silentLogger(),
    );
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await closeTestBrowser(browser);
    await service?.close();
    await rig?.close();
    await media.close();
    await dir?.cleanup();
  });

  it('previews an offer and a carousel, maps every card slot, sends the carousel and the sandbox gets every card', async () => {
    const worker = rig.startWorker();
    const file = join(dir.dir, 'arrivals.csv');
    let csv = csvText();
    for (const c of CARDS) csv = csv.replaceAll(`{clip${c}}`, media.url(`/${c}.mp4`));
    await writeFile(file, csv);
    const page = await (browser as Browser).newPage();
    await page.authenticate({ username: USER, password: PASSWORD });
    expect((await page.goto(`${service?.url ?? ''}/campaigns/new`, { waitUntil: 'load' }))?.status()).toBe(200);
    await page.waitForSelector('#new-campaign[data-ready="1"]', { timeout: 15_000 });
    await (await page.$('#nc-file'))!.uploadFile(file);
    await page.waitForFunction(`document.querySelector('#nc-file-summary').textContent.includes('17 columns')`, { timeout: 10_000 });
    expect(await value(page, '#nc-phone')).toBe('Mobile');

    await offerPreview(page);
    await mapCarousel(page);
    await carouselPreview(
      page,
      CARDS.map((c) => media.url(`/${c}.mp4`)),
    );

    // The dry run, then Confirm: every row valid, the campaign's page.
    await page.click('#nc-check');
    await page.waitForSelector('#nc-plan:not([hidden]) [data-figure="valid"]', { timeout: 30_000 });
    expect(await text(page, '#nc-problems')).toBe('');
    expect(await text(page, '#nc-plan [data-figure="valid"]')).toBe(String(ROWS));
    await worker;
    await Promise.all([
      page.waitForNavigation({ waitUntil: 'load', timeout: 20_000 }).catch(async (e: unknown) => {
        throw new Error(`${String(e)}: ${await text(page, '#nc-status')} ${await text(page, '#nc-problems')}`);
      }),
      page.click('#nc-confirm:not([disabled])'),
    ]);
    const id = /\/campaigns\/([^/?]+)$/.exec(page.url())?.[1] ?? '';
    expect(id).not.toBe('');
    const status = await rig.waitForCompletion(id, 30_000);
    expect(status).toMatchObject({ template: 'carousel_products_media', sent: ROWS, failed: 0, rejected: 0 });
    sandboxCards(rig);
  }, 120_000);
});

/** A limited-time offer: its heading, its coupon code on a copy-code button, and a countdown that runs. */
async function offerPreview(page: Page): Promise<void> {
  await page.select('#nc-template', 'spring_offer_expiring');
  await page.waitForSelector('select[data-slot="lto.expiration"]');
  expect(await text(page, 'tr[data-slot-row="lto.expiration"]')).toContain('required');
  await page.select('select[data-slot="lto.expiration"]', 'Ends');
  await page.select('select[data-slot="button.0.coupon_code"]', 'Code');
  const first = '#nc-preview .bubble-wrap[data-row="1"]';
  expect(await text(page, `${first} .offer-text`)).toBe('Expiring offer!');
  expect(await text(page, `${first} .bubble-coupon .coupon-code`)).toBe('CODE1');
  expect(await text(page, `${first} .bubble-coupon .coupon-copy`)).toContain('Copy offer code');
  const countdown = `${first} .offer-countdown`;
  const before = await text(page, countdown);
  expect(before).toMatch(/^Ends in 1d 23:5\d:\d\d$/);
  await page.waitForFunction(`document.querySelector(${JSON.stringify(countdown)}).textContent !== ${JSON.stringify(before)}`, {
    timeout: 5000,
  });
}

/** The carousel's slots, each a select labelled by its name and what it is; every one mapped from the file's columns. */
async function mapCarousel(page: Page): Promise<void> {
  await page.select('#nc-template', 'carousel_products_media');
  await page.waitForSelector('select[data-slot="card.2.header.video"]');
  const slots = await attributes(page, '#nc-mapping select[data-slot]', 'data-slot');
  expect(slots).toEqual([
    'phone',
    'body.1',
    ...[0, 1, 2].flatMap((c) => ['header.video', 'body.1', 'body.2', 'button.0.payload', 'button.1.url'].map((s) => `card.${c}.${s}`)),
  ]);
  expect(await text(page, 'tr[data-slot-row="card.1.header.video"]')).toMatch(/card\.1\.header\.video required.*card 1: the header video/);
  expect(await text(page, 'tr[data-slot-row="card.1.button.0.payload"]')).toContain('optional');
  // Suggested only where a column is named as the slot.
  expect(await value(page, 'select[data-slot="card.2.button.1.url"]')).toBe('card.2.button.1.url');
  expect(await text(page, '[data-note="card.2.button.1.url"]')).toBe('suggested by its name');
  expect(await value(page, 'select[data-slot="card.0.header.video"]')).toBe('');

  // A column of names for a card's video: not a link, so the card shows a placeholder, never a src.
  await page.select('select[data-slot="card.0.header.video"]', 'Customer');
  expect(await text(page, '#nc-preview .bubble-wrap[data-row="1"] .carousel-card[data-card="0"] [data-placeholder="video"]')).toContain(
    'not an http(s) link: Name1',
  );
  await page.select('select[data-slot="body.1"]', 'Customer');
  await page.select('select[data-slot="card.0.button.0.payload"]', 'More A');
  for (const [i, c] of CARDS.entries()) {
    await page.select(`select[data-slot="card.${i}.header.video"]`, `Clip ${c}`);
    await page.select(`select[data-slot="card.${i}.body.1"]`, `Item ${c}`);
    await page.select(`select[data-slot="card.${i}.body.2"]`, `Price ${c}`);
    if (c !== 'C') await page.select(`select[data-slot="card.${i}.button.1.url"]`, `Slug ${c}`);
  }
  expect(await text(page, '[data-note="card.0.header.video"]')).toBe('your choice');
}

/** Each row's bubble: the message's body, then its three cards side by side, each with its video, body and buttons. */
async function carouselPreview(page: Page, links: readonly string[]): Promise<void> {
  expect(await attributes(page, '#nc-preview .bubble-wrap', 'data-row')).toEqual(['1', '2', '3']);
  expect(await texts(page, '#nc-preview .bubble-body')).toEqual([1, 2, 3].map((r) => `Hi Name${r}, three new arrivals picked for you.`));
  const cards = '#nc-preview .bubble-wrap[data-row="2"] .carousel-card';
  expect(await attributes(page, cards, 'data-card')).toEqual(['0', '1', '2']);
  expect(await attributes(page, `${cards} video`, 'src')).toEqual(links);
  expect(await texts(page, `${cards} .card-body`)).toEqual(CARDS.map((c, i) => `Item ${c}2, now £2${i}.`));
  expect(await texts(page, `${cards} .bubble-button`)).toEqual(CARDS.flatMap(() => ['More like this', 'Buy']));
  // The markup of a cell is the card's text, not an element.
  const first = '#nc-preview .bubble-wrap[data-row="1"] .carousel-card[data-card="0"]';
  expect(await text(page, `${first} .card-body`)).toBe(`${MARKUP}, now £10.`);
  expect(await count(page, `${first} .card-body *`)).toBe(0);
  expect(await page.evaluate(`getComputedStyle(document.querySelector('${first}').parentElement).overflowX`)).toBe('auto');
}

/** Every row reached the sandbox as a carousel: three cards, each with its index, its video by ID and its body's values. */
function sandboxCards(rig: FaultHarness): void {
  const sent = rig.accepted().filter((m) => (m.body as { template?: { name?: string } }).template?.name === 'carousel_products_media');
  expect(sent.map((m) => m.to).sort()).toEqual([1, 2, 3].map(phoneNumber).sort());
  for (const message of sent) {
    const row = [1, 2, 3].find((r) => phoneNumber(r) === message.to) ?? 0;
    const components = (message.body as { template: { components: { type: string; cards?: unknown[] }[] } }).template.components;
    expect(components[0]).toEqual({ type: 'body', parameters: [{ type: 'text', text: `Name${row}` }] });
    expect(components[1]?.type).toBe('carousel');
    expect(components[1]?.cards).toEqual(
      CARDS.map((c, i) => ({
        card_index: i,
        components: expect.arrayContaining([
          { type: 'header', parameters: [{ type: 'video', video: { id: MEDIA_ID } }] },
          {
            type: 'body',
            parameters: [
              { type: 'text', text: row === 1 && i === 0 ? MARKUP : `Item ${c}${row}` },
              { type: 'text', text: `£${row}${i}` },
            ],
          },
          { type: 'button', sub_type: 'url', index: '1', parameters: [{ type: 'text', text: `slug-${c}${row}` }] },
        ]) as unknown,
      })),
    );
    // The optional payload mapped for the first card only: that card's quick reply carries it.
    expect(JSON.stringify(components[1]?.cards?.[0])).toContain(`{"type":"payload","payload":"more-${row}"}`);
  }
}
