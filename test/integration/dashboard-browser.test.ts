import { mkdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { FaultHarness, waIdOfRow, within, type SendSummary } from '../support/fault-harness.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { closeTestBrowser, launchTestBrowser } from '../support/test-browser.js';

/**
 * The campaigns page in a real browser: the Chromium or Chrome findBrowser finds (CHROMIUM_PATH,
 * one installed, else one fetched once into a cache), driven against `campaign serve` (in this
 * process, with a dashboard password) while `campaign worker` (another process) sends a
 * campaign to the sandbox at SEND_RATE=20, so it runs for about a minute. The test loads the
 * campaigns page with basic auth, watches the campaign's counts move without a reload (the
 * page's own script), saves the screenshot docs/monitoring.md shows, opens the campaign's page,
 * clicks Pause and checks the ledger says paused.
 */
/**
 * The docs' screenshot is rewritten only when asked (UPDATE_SCREENSHOTS=1 npm test), so a
 * test run leaves the working tree clean; otherwise the same screenshot goes to a temp file.
 */
const SCREENSHOT =
  process.env.UPDATE_SCREENSHOTS === '1'
    ? fileURLToPath(new URL('../../docs/campaigns-page.png', import.meta.url))
    : join(tmpdir(), `campaigns-page-${process.pid}.png`);
const ROWS = 1200;
const RATE = 20;
const USER = 'operator';
const PASSWORD = 'browser-test-password';
/** Rows whose recipient Meta reports failed by webhook (131026: undeliverable), so errors by code show. */
const FAILING_ROWS = [3, 7, 11];

describe('the campaigns page in headless Chromium', () => {
  let rig: FaultHarness;
  let browser: Browser | undefined;

  beforeAll(async () => {
    // Not a skip: with no browser to be found or fetched, the test fails and says how to provide one.
    rig = await FaultHarness.start({
      label: 'dashboard-browser',
      rows: ROWS,
      sendRate: RATE,
      sandboxMps: 0,
      webhooks: true,
      // The harness gives workerEnv to the service it starts too: that service gets the password.
      workerEnv: { DASHBOARD_USER: USER, DASHBOARD_PASSWORD: PASSWORD },
    });
    rig.setFaults({ recipientErrors: FAILING_ROWS.map((row) => ({ waId: waIdOfRow(row), code: 131026, times: 1 })) });
    browser = await launchTestBrowser({ width: 1440, height: 520 });
  });

  afterAll(async () => {
    await closeTestBrowser(browser);
    await rig?.close();
    // The temp copy only proved the page could be drawn; the docs' copy stays.
    if (process.env.UPDATE_SCREENSHOTS !== '1') await rm(SCREENSHOT, { force: true });
  });

  it('shows the running campaign, updates its counts in place, and its Pause button pauses it in the ledger', async () => {
    const url = rig.service?.url ?? '';
    await rig.startWorker();
    // A second campaign, scheduled for tomorrow: the list shows both, each in its state.
    const tomorrow = new Date(Date.now() + 86_400_000).toISOString().replace(/\.\d+Z$/, 'Z');
    const scheduled = await rig.cli([
      'send',
      rig.csvFile,
      '--template',
      'order_update',
      '--language',
      'en_US',
      '--params',
      'first_name,order_id',
      '--templates',
      SAMPLE_TEMPLATES,
      '--at',
      tomorrow,
      '--json',
    ]);
    const scheduledId = (JSON.parse(scheduled.stdout) as SendSummary).id;
    const summary = await rig.send();
    const id = summary.id;
    const page = await (browser as Browser).newPage();
    await page.authenticate({ username: USER, password: PASSWORD });

    const response = await page.goto(`${url}/`, { waitUntil: 'load' });
    expect(response?.status()).toBe(200);
    const row = `tr[data-campaign="${id}"]`;
    await page.waitForSelector(row);
    // A mark on the window: it survives the live updates, not a reload.
    await page.evaluate('window.__notReloaded = true');

    // The counts move: `sent` grows twice while the page stays the same document.
    const sent = () => fieldNumber(page, row, 'sent');
    const first = await sent();
    await waitForField(page, row, 'sent', first, 60_000);
    const second = await sent();
    await waitForField(page, row, 'sent', second, 60_000);
    expect(await sent()).toBeGreaterThan(second);
    expect(await page.evaluate('window.__notReloaded === true')).toBe(true);
    expect(await text(page, `${row} [data-field="state"]`)).toBe('running');
    expect(await text(page, `tr[data-campaign="${scheduledId}"] [data-field="state"]`)).toBe('scheduled');

    // The failed rows show as errors by code once the tally has counted them (webhooks fail them within a second or so).
    await waitForField(page, row, 'delivered', 0, 60_000);
    await within(
      60_000,
      page.waitForFunction(`document.querySelector('${row} [data-field="errors"]').textContent.includes('131026')`, {
        polling: 250,
        timeout: 0,
      }),
      async () => `errors cell: ${await text(page, `${row} [data-field="errors"]`)}`,
    );
    // Long enough at 20/s for the rate's 10 s window to be full, so the screenshot reads about 20/s.
    await waitForField(page, row, 'sent', 250, 90_000);
    expect(await text(page, `${row} [data-field="rate"]`)).toMatch(/^\d+\.\d\/s$/);
    expect(await text(page, `${row} [data-field="eta"]`)).toMatch(/\d+s$/);
    expect(Number(await attribute(page, `${row} progress`, 'value'))).toBeGreaterThan(0);
    await mkdir(fileURLToPath(new URL('../../docs/', import.meta.url)), { recursive: true });
    await page.screenshot({ path: SCREENSHOT });

    // The campaign's own page: rows by status, errors by code, the report link, the controls.
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(`${row} td.id a`)]);
    expect(page.url()).toBe(`${url}/campaigns/${id}`);
    expect(await text(page, 'table.errors')).toContain('131026');
    expect(await text(page, `a[href="/campaigns/${id}/report.csv"]`)).toContain('Download');
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click(`form[action="/campaigns/${id}/pause"] button`)]);
    expect(page.url()).toBe(`${url}/campaigns/${id}?done=pause`);
    expect(await text(page, '.notice')).toContain('Paused');
    expect(await text(page, 'h1 [data-field="state"]')).toBe('paused');

    const status = await rig.inRedis((redis) => new RedisLedger(redis, rig.prefix).status(id));
    expect(status?.state).toBe('paused');
    expect(status?.pausedReason).toBe(`paused from the campaigns page by ${USER}`);
    // The page now offers Resume, not Pause.
    expect(await page.$(`form[action="/campaigns/${id}/resume"] button`)).not.toBeNull();
    expect(await page.$(`form[action="/campaigns/${id}/pause"] button`)).toBeNull();
  }, 300_000);
});

/** The element's text, read in the page (expressions as strings: the test's types know no DOM). */
async function text(page: Page, selector: string): Promise<string> {
  const value: unknown = await page.evaluate(`document.querySelector(${JSON.stringify(selector)})?.textContent ?? null`);
  if (typeof value !== 'string') throw new Error(`no ${selector} on ${page.url()}`);
  return value;
}

async function attribute(page: Page, selector: string, name: string): Promise<string | null> {
  const value: unknown = await page.evaluate(
    `document.querySelector(${JSON.stringify(selector)})?.getAttribute(${JSON.stringify(name)}) ?? null`,
  );
  return typeof value === 'string' ? value : null;
}

async function fieldNumber(page: Page, row: string, field: string): Promise<number> {
  return Number((await text(page, `${row} [data-field="${field}"]`)).replace(/,/g, ''));
}

/** Waits (the browser checks the DOM every 250 ms) until the field's number is above `above`; fails with its value after `ms`. */
async function waitForField(page: Page, row: string, field: string, above: number, ms: number): Promise<void> {
  const selector = JSON.stringify(`${row} [data-field="${field}"]`);
  const expression = `Number((document.querySelector(${selector})?.textContent ?? '').replace(/,/g, '')) > ${above}`;
  await within(
    ms,
    page.waitForFunction(expression, { polling: 250, timeout: 0 }),
    async () => `${field} is ${await text(page, `${row} [data-field="${field}"]`)}, not above ${above}`,
  );
}
