import type { Browser } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { ApiTestService, CAMPAIGN_API_ENV } from '../support/api-service.js';
import { phoneNumber } from '../support/csv-files.js';
import { attributes, text } from '../support/page-reads.js';
import { PHONE_NUMBER_ID } from '../support/pipeline.js';
import { closeTestBrowser, launchTestBrowser } from '../support/test-browser.js';

/** Twelve contacts, every third gold: a `where` of tier = "gold" chooses four. */
const CSV = [
  'phone,first_name,order_id,tier',
  ...Array.from({ length: 12 }, (_, i) => `${phoneNumber(i + 1)},Name${i + 1},A-${i + 1},${(i + 1) % 3 === 0 ? 'gold' : 'silver'}`),
].join('\n');

/** The New campaign page in headless Chromium, sending to a stored audience's segment: dry run, a test send, then Confirm. */
describe('the New campaign page: recipients from an audience', () => {
  const api = new ApiTestService('dashboard-audience-browser');
  let browser: Browser | undefined;

  beforeAll(async () => {
    await api.start({ ...CAMPAIGN_API_ENV, PORTFOLIOS: `${PHONE_NUMBER_ID}:retail` });
    const put = await api.call('/audiences/weekly', { method: 'PUT', scope: 'send', body: CSV, headers: { 'content-type': 'text/csv' } });
    expect(put.status).toBe(201);
    browser = await launchTestBrowser();
  });
  afterAll(async () => {
    await closeTestBrowser(browser);
    await api.close();
  });

  it('plans the segment `where` chooses, sends a test to a number given, and creates the campaign', async () => {
    const page = await browser!.newPage();
    const errors: string[] = [];
    page.on('pageerror', (error) => errors.push(String(error)));
    await page.goto(`${api.service!.url}/campaigns/new`);
    await page.waitForSelector('#new-campaign[data-ready="1"]', { timeout: 15_000 });
    await page.click('input[name="recipients"][value="audience"]');
    await page.waitForSelector('#nc-audience option[value="weekly"]', { timeout: 10_000 });
    await page.select('#nc-audience', 'weekly');
    await page.waitForFunction(`document.querySelector('#nc-file-summary').textContent.includes('Audience weekly: 12 contacts')`, {
      timeout: 10_000,
    });
    await page.select('#nc-template', 'order_update');
    // The template's two slots take their columns from the audience's attributes.
    const slots = (await attributes(page, 'select[data-slot^="body."]', 'data-slot')).map((slot) => slot ?? '');
    expect(slots).toHaveLength(2);
    const offered = await attributes(page, `select[data-slot="${slots[0]}"] option`, 'value');
    expect(offered).toStrictEqual(['', 'first_name', 'order_id', 'tier']);
    await page.select(`select[data-slot="${slots[0]}"]`, 'first_name');
    await page.select(`select[data-slot="${slots[1]}"]`, 'order_id');
    await page.type('#nc-where', 'tier = "gold"');
    await page.click('#nc-check');
    await page.waitForSelector('#nc-plan:not([hidden]) [data-figure="valid"]', { timeout: 15_000 });
    expect(await text(page, '#nc-plan [data-figure="rows"]')).toBe('4');
    expect(await text(page, '#nc-plan [data-figure="valid"]')).toBe('4');

    page.once('dialog', (dialog) => void dialog.accept(phoneNumber(99)));
    await page.click('#nc-test');
    await page.waitForSelector('#nc-test-link', { timeout: 15_000 });
    const testId = await text(page, '#nc-test-link');
    const ledger = new RedisLedger(api.redis, api.prefix);
    expect((await ledger.status(testId))?.counts.total).toBe(1);

    await page.waitForFunction(`!document.querySelector('#nc-confirm').disabled`, { timeout: 5_000 });
    await Promise.all([page.waitForNavigation({ timeout: 15_000 }), page.click('#nc-confirm')]);
    const id = decodeURIComponent(new URL(page.url()).pathname.split('/').pop() ?? '');
    expect(await ledger.getCampaign(id)).toMatchObject({ audience: { name: 'weekly', where: 'tier = "gold"' } });
    expect((await ledger.status(id))?.counts.total).toBe(4);
    expect(errors).toStrictEqual([]);
  }, 40_000);
});
