import type { Redis } from 'ioredis';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { closeTestBrowser, launchTestBrowser } from '../support/test-browser.js';
import { LEDGER_TEST_NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';

/**
 * A campaign's charts in headless Chromium (found as test/integration/dashboard-browser.test.ts
 * finds it), against `campaign serve` on a real Redis whose ledger the test writes itself (no
 * worker: a few seconds in all). The page's time chart is a uPlot canvas whose data ends at
 * the ledger's counters, the error bars are the ledger's errors by code, the funnel is its
 * counts; a row sent after the page loaded reaches the charts through the page's live update.
 */
const ID = 'charts';
const ROWS = 9;
const NUMBER = LEDGER_TEST_NUMBER;
const job = (row: number): SendJob => ({ campaignId: ID, row });

describe('a campaign’s charts in headless Chromium', () => {
  const prefix = freshPrefix('charts-browser');
  let redis: Redis;
  let ledger: RedisLedger;
  let service: RunningService;
  let browser: Browser | undefined;

  const send = async (row: number) => {
    await ledger.claim(job(row), NUMBER);
    await ledger.settle(job(row), { status: 'sent', wamid: `w${row}` }, NUMBER);
  };

  beforeAll(async () => {
    redis = testRedis();
    ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, ID, ROWS);
    await feedAll(ledger);
    for (const row of [1, 2, 3, 4, 5]) await send(row);
    for (const [row, code] of [
      [6, '131026'],
      [7, '131047'],
    ] as const) {
      await ledger.claim(job(row), NUMBER);
      await ledger.settle(job(row), { status: 'failed', errorCode: code, errorDetail: 'x' }, NUMBER);
    }
    const status = (wamid: string, kind: 'delivered' | 'read') => ({ phoneNumberId: NUMBER, wamid, kind, at: Date.now() });
    await ledger.applyStatuses([status('w1', 'read'), status('w2', 'read'), status('w3', 'delivered')]);
    await ledger.applyInbound([
      { phoneNumberId: NUMBER, waId: '4915100000001', wamid: 'in1', at: Date.now(), replyTo: 'w1', reply: 'Yes', optOut: false },
    ]);
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', WHATSAPP_APP_SECRET: 's', WEBHOOK_VERIFY_TOKEN: 'v' },
      silentLogger(),
    );
    browser = await launchTestBrowser();
  }, 60_000);

  afterAll(async () => {
    await closeTestBrowser(browser);
    await service?.close();
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  it('draws the counters over time, the errors by code and the funnel from the ledger, and moves them live', async () => {
    const page = await (browser as Browser).newPage();
    const problems: string[] = [];
    page.on('pageerror', (error) => problems.push(String(error)));
    // A failed load shows as its response (the browser's own favicon request aside); script errors as page errors.
    page.on('response', (r) => {
      if (r.status() >= 400 && !r.url().endsWith('/favicon.ico')) problems.push(`${r.status()} ${r.url()}`);
    });
    page.on('console', (message) => {
      if (message.type() === 'error' && !message.text().startsWith('Failed to load resource')) problems.push(message.text());
    });
    const response = await page.goto(`${service.url}/campaigns/${ID}`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    await page.waitForFunction('window.campaignTimeline !== undefined', { timeout: 10_000 });

    expect(await page.$('.charts .timeline canvas')).not.toBeNull();
    expect(await page.$$eval('.charts svg.funnel', (svgs) => svgs.length)).toBe(1);
    const counts = (await ledger.status(ID))?.counts;
    expect(await timelineLast(page)).toEqual({
      sent: counts?.sent,
      delivered: counts?.delivered,
      read: counts?.read,
      failed: counts?.failed,
    });
    expect(counts).toMatchObject({ sent: 5, delivered: 3, read: 2, failed: 2 });
    expect(await funnel(page)).toEqual({ queued: ROWS, sent: 5, delivered: 3, read: 2, replied: 1 });
    const codes = (await ledger.errorCodes(ID)).codes.map(({ status, code, rows }) => ({ status, code, rows }));
    expect(codes).toHaveLength(2);
    expect(await errorBars(page)).toEqual(codes);

    // A row sent now reaches the charts with the next live update (every 2 s), without a reload.
    await page.evaluate('window.__notReloaded = true');
    await send(8);
    await page.waitForFunction('window.campaignTimeline.data[1].at(-1) === 6', { timeout: 10_000 });
    expect((await funnel(page)).sent).toBe(6);
    expect(await page.evaluate('window.__notReloaded === true')).toBe(true);
    expect(problems).toEqual([]);
  });
});

/** The last point of each line of the page's uPlot chart (its data: x, then sent, delivered, read, failed). */
async function timelineLast(page: Page): Promise<Record<string, number>> {
  return (await page.evaluate(`(() => {
    const plot = window.campaignTimeline;
    const out = {};
    plot.series.forEach((s, i) => { if (i > 0) out[s.label] = plot.data[i][plot.data[i].length - 1]; });
    return out;
  })()`)) as Record<string, number>;
}

async function funnel(page: Page): Promise<Record<string, number>> {
  return (await page.evaluate(`Object.fromEntries(
    [...document.querySelectorAll('.charts svg.funnel g.bar')]
      .map((g) => [g.getAttribute('data-stage'), Number(g.getAttribute('data-rows'))]),
  )`)) as Record<string, number>;
}

async function errorBars(page: Page): Promise<{ status: string; code: string; rows: number }[]> {
  return (await page.evaluate(`[...document.querySelectorAll('.charts svg.error-bars g.bar')].map((g) => ({
    status: g.getAttribute('data-status'),
    code: g.getAttribute('data-code'),
    rows: Number(g.getAttribute('data-rows')),
  }))`)) as { status: string; code: string; rows: number }[];
}
