import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { closeTestBrowser, launchTestBrowser } from '../support/test-browser.js';
import { phoneNumber, tempDir } from '../support/csv-files.js';
import { FaultHarness, waIdOfRow, within } from '../support/fault-harness.js';
import { attributes, text, texts, value } from '../support/page-reads.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';

/**
 * The New campaign page in headless Chromium, against `campaign serve` (in this process, with a
 * dashboard password) and `campaign worker` (another process) sending to the sandbox: the
 * test uploads a CSV whose headers are not the template's variable names, puts right the phone
 * column the suggestions got wrong and the column they left empty (a check before shows the
 * refusal's problems), reads the preview
 * bubbles, runs the dry run, confirms, lands on the campaign's page and watches its sent count
 * and its charts rise; once the campaign is done, the Retarget form makes a new campaign of its
 * failed rows.
 */
const USER = 'operator';
const PASSWORD = 'new-campaign-test-password';
/** At SEND_RATE=20 the campaign sends for about 10 s: its page sees it move. */
const ROWS = 200;
/** Row 2 lacks its appointment (VALUE_EMPTY), row 4 has no valid phone (PHONE_INVALID). */
const EMPTY_ROW = 2;
const BAD_PHONE_ROW = 4;
/** Rows whose recipient Meta reports failed by webhook (131026), for the Retarget form. */
const FAILING_ROWS = [5, 9];

function csvText(): string {
  const lines = ['Phone Type,Mobile Number,First Name,When,Notes'];
  for (let i = 1; i <= ROWS; i++) {
    const phone = i === BAD_PHONE_ROW ? '12' : phoneNumber(i);
    lines.push(`mobile,${phone},Name${i},${i === EMPTY_ROW ? '' : `Day ${i} at 10:00`},"note, ${i}"`);
  }
  return lines.join('\n') + '\n';
}

describe('the New campaign page in headless Chromium', () => {
  let rig: FaultHarness;
  let browser: Browser | undefined;
  let dir: { dir: string; cleanup: () => Promise<void> };

  beforeAll(async () => {
    dir = await tempDir();
    rig = await FaultHarness.start({
      label: 'dashboard-new-campaign',
      rows: 1,
      sendRate: 20,
      sandboxMps: 0,
      webhooks: true,
      // Given to the service the harness starts too: the password, the templates, the number, where rejects go.
      workerEnv: {
        DASHBOARD_USER: USER,
        DASHBOARD_PASSWORD: PASSWORD,
        TEMPLATES_FILE: SAMPLE_TEMPLATES,
        WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
        REPORTS_DIR: join(dir.dir, 'reports'),
      },
    });
    rig.setFaults({ recipientErrors: FAILING_ROWS.map((row) => ({ waId: waIdOfRow(row), code: 131026, times: 1 })) });
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await closeTestBrowser(browser);
    await rig?.close();
    await dir?.cleanup();
  });

  it('maps the columns, previews, dry-runs, shows every problem, creates the campaign, and retargets its failed rows', async () => {
    const url = rig.service?.url ?? '';
    const worker = rig.startWorker();
    const file = join(dir.dir, 'appointments.csv');
    await writeFile(file, csvText());
    const page = await (browser as Browser).newPage();
    await page.authenticate({ username: USER, password: PASSWORD });

    // From the campaigns list, by its link.
    expect((await page.goto(`${url}/`, { waitUntil: 'load' }))?.status()).toBe(200);
    await Promise.all([page.waitForNavigation({ waitUntil: 'load' }), page.click('a[href="/campaigns/new"]')]);
    await page.waitForSelector('#new-campaign[data-ready="1"]', { timeout: 15_000 });
    expect(await value(page, '#nc-number')).toBe(PHONE_NUMBER_ID);

    // The file: its columns are offered, the phone column guessed wrong ("Phone Type" names a phone), and put right.
    const input = await page.$('#nc-file');
    await input!.uploadFile(file);
    await page.waitForFunction(`document.querySelector('#nc-file-summary').textContent.includes('5 columns')`, { timeout: 10_000 });
    expect(await value(page, '#nc-phone')).toBe('Phone Type');
    expect(await text(page, '#nc-phone-note')).toBe('suggested by its name');
    await page.select('#nc-phone', 'Mobile Number');
    expect(await text(page, '#nc-phone-note')).toBe('your choice');

    // The template: first_name is suggested from "First Name"; appointment_time matches no column.
    await page.select('#nc-template', 'appointment_reminder_named');
    await page.waitForSelector('select[data-slot="body.appointment_time"]');
    expect(await value(page, 'select[data-slot="body.first_name"]')).toBe('First Name');
    expect(await value(page, 'select[data-slot="body.appointment_time"]')).toBe('');
    expect(await text(page, '[data-note="body.appointment_time"]')).toContain('choose one');
    // Checked without first_name's column either: refused (422), every problem listed at once. A named template's
    // variable left unmapped comes from the column of its name, which this file lacks: each names that column.
    await page.select('select[data-slot="body.first_name"]', '');
    await page.click('#nc-check');
    await page.waitForSelector('#nc-problems .error', { timeout: 20_000 });
    expect(await text(page, '#nc-problems .problem-title')).toContain('(HTTP 422)');
    const problems = await texts(page, '#nc-problems li');
    expect(problems).toHaveLength(2);
    expect(problems).toEqual(
      ['first_name', 'appointment_time'].map(
        (variable) =>
          `TEMPLATE_MAPPING_INVALID Template appointment_reminder_named (en_US): body.${variable} (body variable {{${variable}}}) ` +
          `is to come from column "${variable}", which the file does not have (column ${variable})`,
      ),
    );
    expect(await page.$eval('#nc-confirm', (b) => (b as unknown as { disabled: boolean }).disabled)).toBe(true);

    await page.select('select[data-slot="body.first_name"]', 'First Name');
    await page.select('select[data-slot="body.appointment_time"]', 'When');
    expect(await text(page, '[data-note="body.appointment_time"]')).toBe('your choice');
    // Five bubbles, the first five rows that can be sent (row 2 lacks its value), with their values.
    const bubbles = await texts(page, '#nc-preview .bubble-body');
    expect(bubbles).toHaveLength(5);
    expect(bubbles[0]).toBe('Hello Name1, this is a reminder of your appointment on Day 1 at 10:00. Reply to this message to reschedule.');
    expect(await attributes(page, '#nc-preview .bubble-wrap', 'data-row')).toEqual(['1', '3', '4', '5', '6']);

    // The dry run: counts, refused rows by reason with an example, the plan.
    await page.type('#nc-valid-for', '2h');
    await page.select('#nc-priority', 'high');
    await page.type('#nc-name', 'Appointments from the page');
    await page.click('#nc-check');
    await page.waitForSelector('#nc-plan:not([hidden]) [data-figure="valid"]', { timeout: 20_000 });
    expect(await text(page, '#nc-plan [data-figure="valid"]')).toBe(String(ROWS - 2));
    expect(await text(page, '#nc-plan [data-figure="rejected"]')).toBe('2');
    expect(await text(page, '#nc-plan tr[data-reason="PHONE_INVALID"]')).toContain(`row ${BAD_PHONE_ROW}`);
    expect(await text(page, '#nc-plan tr[data-reason="VALUE_EMPTY"]')).toContain(`row ${EMPTY_ROW}`);
    expect(await text(page, '#nc-plan ul.plan')).toContain('messaging limit');
    // The preview now leaves out the row the dry run refused.
    expect(await attributes(page, '#nc-preview .bubble-wrap', 'data-row')).toEqual(['1', '3', '5', '6', '7']);

    // Confirm: the campaign's page, its sent count rising as the worker sends.
    await worker;
    await Promise.all([page.waitForNavigation({ waitUntil: 'load', timeout: 20_000 }), page.click('#nc-confirm:not([disabled])')]);
    const id = /\/campaigns\/([^/?]+)$/.exec(page.url())?.[1] ?? '';
    expect(id).not.toBe('');
    const definition = await rig.inRedis((redis) => new RedisLedger(redis, rig.prefix).getCampaign(id));
    expect(definition?.name).toBe('Appointments from the page');
    // The page's choices reached it: priority, and rows expiring 2 h after the start.
    const created = await rig.inRedis((redis) => new RedisLedger(redis, rig.prefix).status(id));
    expect(created?.priority).toBe('high');
    expect((created?.expiresAt ?? 0) - (created?.createdAt ?? 0)).toBeGreaterThan(7_100_000);
    // The figures as the page came, then as the live updates move them: the sent count, and the charts' funnel with it.
    const sent = `section[data-campaign="${id}"] [data-field="sent"]`;
    const sentBar = '.charts svg.funnel g.bar[data-stage="sent"]';
    const barAtLoad = Number((await attributes(page, sentBar, 'data-rows'))[0]);
    await waitForNumber(page, sent, 0, 30_000);
    const first = await number(page, sent);
    await waitForNumber(page, sent, first, 30_000);
    await within(
      20_000,
      page.waitForFunction(`Number(document.querySelector(${JSON.stringify(sentBar)})?.getAttribute('data-rows')) > ${barAtLoad}`, {
        polling: 250,
        timeout: 0,
      }),
      () => `the funnel's sent bar stayed at ${barAtLoad}`,
    );

    // Finished (the page reloads on the change of state): the Retarget form makes a campaign of the failed rows.
    await rig.waitForCompletion(id, 30_000);
    await rig.pollUntil('failed rows reported', 20_000, 250, async () =>
      (await rig.status(id)).failed >= FAILING_ROWS.length ? true : undefined,
    );
    // The page reloads itself once it sees the new state; a reload of ours meeting that one can
    // detach the page, so ours comes after it: once the page shows the campaign completed.
    await page.waitForFunction(`document.querySelector('section[data-campaign]')?.getAttribute('data-state') === 'completed'`, {
      polling: 100,
      timeout: 20_000,
    });
    await page.reload({ waitUntil: 'load' });
    await page.waitForSelector('form#retarget');
    await page.select('form#retarget select[name="status"]', 'failed');
    await page.click('form#retarget button[type="submit"]');
    // The new campaign's page, or the refusal the form shows (the failure message names it).
    await page.waitForFunction(`!location.pathname.endsWith('/${id}') || document.querySelector('#retarget-problems .error')`, {
      polling: 100,
      timeout: 20_000,
    });
    expect(await page.evaluate(`document.querySelector('#retarget-problems')?.textContent ?? ''`)).toBe('');
    await page.waitForSelector('section[data-campaign]');
    const retargeted = /\/campaigns\/([^/?]+)$/.exec(page.url())?.[1] ?? '';
    expect(retargeted).not.toBe(id);
    const status = await rig.inRedis((redis) => new RedisLedger(redis, rig.prefix).status(retargeted));
    expect(status?.counts.total).toBe(FAILING_ROWS.length);
  }, 60_000);
});

async function number(page: Page, selector: string): Promise<number> {
  return Number((await text(page, selector)).replace(/,/g, ''));
}

/** Waits (the browser checks every 250 ms) until the number shown is above `above`. */
async function waitForNumber(page: Page, selector: string, above: number, ms: number): Promise<void> {
  const expression = `Number((document.querySelector(${JSON.stringify(selector)})?.textContent ?? '').replace(/,/g, '')) > ${above}`;
  await within(
    ms,
    page.waitForFunction(expression, { polling: 250, timeout: 0 }),
    async () => `${selector} is ${await text(page, selector)}, not above ${above}`,
  );
}
