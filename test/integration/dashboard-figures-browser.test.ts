import Fastify, { type FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { IngestedRow } from '../../src/campaigns/ledger.js';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { createDashboard, type Dashboard } from '../../src/dashboard/dashboard.js';
import { ERROR_TALLY_MIN_AGE_MS } from '../../src/dashboard/error-tallies.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { closeTestBrowser, launchTestBrowser } from '../support/test-browser.js';
import { phoneNumber } from '../support/csv-files.js';
import { LEDGER_TEST_NUMBER, feedAll, ingestQueuedCampaign, ledgerTestDefinition, queuedRow } from '../support/ledger-fixtures.js';
import { freshPrefix, removePrefix, testRedis } from '../support/redis.js';

/**
 * The figures of a campaign's page in headless Chromium, against the dashboard on a real Redis
 * whose ledger the test writes itself. The dashboard's clock is the test's, so a recount of the
 * errors (at most every ERROR_TALLY_MIN_AGE_MS) comes when the test moves it, not after a sleep.
 * An empty chart says "nothing yet" instead of drawing an axis; bar labels fit their chart; the
 * error bars and the errors table show the same rows, before and after a live update; the times
 * the page writes carry their zone.
 */
const FIGURES = 'figures';
const QUIET = 'quiet';
const NUMBER = LEDGER_TEST_NUMBER;
/** A long code, as the producer writes it: its label must show whole. */
const LONG_CODE = 'MARKETING_US_PAUSED';
const UTC_TIME = /\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC$/;
const job = (row: number): SendJob => ({ campaignId: FIGURES, row });

describe('the figures of a campaign’s page in headless Chromium', () => {
  const prefix = freshPrefix('figures-browser');
  let redis: Redis;
  let dashboardRedis: Redis;
  let ledger: RedisLedger;
  let dashboard: Dashboard;
  let app: FastifyInstance;
  let url = '';
  let browser: Browser | undefined;
  /** How far the dashboard's clock is ahead of the real one. */
  let ahead = 0;

  const settle = async (row: number, outcome: 'sent' | 'failed', code = '131026') => {
    await ledger.claim(job(row), NUMBER);
    await ledger.settle(
      job(row),
      outcome === 'sent' ? { status: 'sent', wamid: `w${row}` } : { status: 'failed', errorCode: code, errorDetail: `detail ${code}` },
      NUMBER,
    );
  };

  beforeAll(async () => {
    redis = testRedis();
    dashboardRedis = testRedis();
    ledger = new RedisLedger(redis, prefix);
    // Rows 1-6 to send, 7-9 skipped with a long code, 10 rejected.
    const skipped = (row: number): IngestedRow => ({
      row,
      phone: phoneNumber(row),
      status: 'skipped',
      errorCode: LONG_CODE,
      errorDetail: 'US',
    });
    const rows: IngestedRow[] = [1, 2, 3, 4, 5, 6].map((row) => queuedRow(row));
    rows.push(...[7, 8, 9].map(skipped), { row: 10, phone: 'x', status: 'rejected', errorCode: 'PHONE_INVALID', errorDetail: 'x' });
    await ledger.createCampaign(ledgerTestDefinition(FIGURES));
    await ledger.recordIngested(FIGURES, NUMBER, rows);
    await ledger.finishIngest(FIGURES);
    await feedAll(ledger);
    await settle(1, 'sent');
    await settle(2, 'sent');
    await settle(3, 'failed');
    // A campaign nothing of which was sent yet.
    await ingestQueuedCampaign(ledger, QUIET, 4);
    dashboard = createDashboard({
      redis: dashboardRedis,
      prefix,
      ledger: new RedisLedger(dashboardRedis, prefix),
      credentials: undefined,
      logger: silentLogger(),
      sendRate: () => 20,
      now: () => Date.now() + ahead,
    });
    app = Fastify();
    await dashboard.register(app);
    url = await app.listen({ port: 0, host: '127.0.0.1' });
    browser = await launchTestBrowser();
  }, 60_000);

  afterAll(async () => {
    await closeTestBrowser(browser);
    await app?.close();
    await dashboard?.close();
    if (redis !== undefined) await removePrefix(redis, prefix);
    redis?.disconnect();
    dashboardRedis?.disconnect();
  });

  const open = async (id: string): Promise<{ page: Page; problems: string[] }> => {
    const page = await (browser as Browser).newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    const response = await page.goto(`${url}/campaigns/${id}`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.waitForSelector('[data-charts][data-drawn]', { timeout: 10_000 });
    return { page, problems };
  };

  it('an empty chart says "nothing yet" instead of drawing an axis', async () => {
    const { page, problems } = await open(QUIET);
    expect(await page.$('.charts .timeline canvas')).toBeNull();
    expect(await text(page, '.charts .timeline .plot')).toMatch(/^Nothing yet/);
    expect(await text(page, '.charts .error-bars .plot')).toMatch(/^Nothing yet/);
    // Its funnel has its queued rows to show.
    expect(await page.$$eval('.charts svg.funnel g.bar', (bars) => bars.length)).toBe(5);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('bar labels fit their chart, whole', async () => {
    const { page, problems } = await open(FIGURES);
    // Each bar's label (its first text) against the chart it is drawn in: on screen, and as wide as its whole text.
    const labels = (await page.evaluate(`[...document.querySelectorAll('.charts svg g.bar')].map((g) => {
      const box = g.ownerSVGElement.getBoundingClientRect();
      const label = g.querySelector('text');
      const drawn = label.getBoundingClientRect();
      return {
        text: label.textContent,
        measured: label.getComputedTextLength(),
        inside: drawn.left >= box.left - 0.5 && drawn.right <= box.right + 0.5,
        room: Math.min(drawn.right, box.right) - Math.max(drawn.left, box.left),
      };
    })`)) as { text: string; measured: number; inside: boolean; room: number }[];
    expect(labels.map((l) => l.text)).toEqual(
      expect.arrayContaining([`${LONG_CODE} · skipped`, '131026 · failed', 'PHONE_INVALID · rejected', 'queued', 'replied']),
    );
    for (const label of labels) {
      expect(label, `${label.text}`).toMatchObject({ inside: true });
      expect(label.room).toBeGreaterThanOrEqual(label.measured - 0.5);
    }
    expect(problems).toEqual([]);
    await page.close();
  });

  it('the error bars and the errors table count the same rows, and move together with the live update', async () => {
    const { page, problems } = await open(FIGURES);
    const before = await errorBars(page);
    expect(before).toEqual(await errorTable(page));
    expect(total(before)).toBe(3 + 1 + 1);
    // Two more rows fail; once the dashboard's clock says the count is old enough, it is counted again.
    await settle(4, 'failed', '131047');
    await settle(5, 'failed', '131047');
    ahead += ERROR_TALLY_MIN_AGE_MS + 1000;
    await page.waitForFunction(
      `[...document.querySelectorAll('.charts svg.error-bars g.bar')].reduce((n, g) => n + Number(g.getAttribute('data-rows')), 0) === 7`,
      { timeout: 20_000 },
    );
    const after = await errorBars(page);
    expect(after).toEqual(await errorTable(page));
    expect(after).toContainEqual({ status: 'failed', code: '131047', rows: 2 });
    const counted = (await ledger.errorCodes(FIGURES)).codes.map(({ status, code, rows }) => ({ status, code, rows }));
    expect(after).toEqual(counted);
    expect(await text(page, '[data-errors-scope]')).toMatch(/^Counted over all 10 rows at \d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2} UTC\.$/);
    expect(problems).toEqual([]);
    await page.close();
  });

  it('writes its times with their zone: the facts, the time chart and the live update', async () => {
    const { page, problems } = await open(FIGURES);
    const created = await page.evaluate(
      `[...document.querySelectorAll('dl.facts dt')].find((dt) => dt.textContent === 'Created').nextElementSibling.textContent`,
    );
    expect(created).toMatch(UTC_TIME);
    // The time chart's legend says the time under the cursor.
    await page.hover('.charts .timeline .u-over');
    await page.waitForFunction(`/\\d/.test(document.querySelector('.charts .timeline .u-legend .u-series .u-value').textContent)`);
    expect(await text(page, '.charts .timeline .u-legend .u-series .u-value')).toMatch(UTC_TIME);
    await page.waitForFunction(`document.getElementById('live-status').textContent.startsWith('live: updated 2')`, { timeout: 10_000 });
    expect(await text(page, '#live-status')).toMatch(UTC_TIME);
    expect(problems).toEqual([]);
    await page.close();
  });
});

/** Runs in the page: a string, as the project's TypeScript knows no DOM types. */
async function text(page: Page, selector: string): Promise<string> {
  return (await page.evaluate(`(document.querySelector(${JSON.stringify(selector)})?.textContent ?? '').trim()`)) as string;
}

type Bar = { status: string; code: string; rows: number };

const total = (bars: Bar[]) => bars.reduce((n, b) => n + b.rows, 0);

async function errorBars(page: Page): Promise<Bar[]> {
  return (await page.evaluate(`[...document.querySelectorAll('.charts svg.error-bars g.bar')].map((g) => ({
    status: g.getAttribute('data-status'),
    code: g.getAttribute('data-code'),
    rows: Number(g.getAttribute('data-rows')),
  }))`)) as Bar[];
}

/** The errors table's rows as shown: status, code and rows (written 1,234). */
async function errorTable(page: Page): Promise<Bar[]> {
  return (await page.evaluate(`[...document.querySelectorAll('table.errors tbody tr')].map((tr) => {
    const cells = [...tr.querySelectorAll('td')].map((td) => td.textContent.trim());
    return { status: cells[0], code: cells[1], rows: Number(cells[2].replace(/,/g, '')) };
  })`)) as Bar[];
}
