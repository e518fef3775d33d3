import type { Redis } from 'ioredis';
import type { Browser, Page } from 'puppeteer-core';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CampaignControls } from '../../src/campaigns/control/campaign-controls.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { closeTestBrowser, launchTestBrowser } from '../support/test-browser.js';
import { LEDGER_TEST_NUMBER, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';

/**
 * Every page opened directly, as from a bookmark in a fresh browser: headless Chromium, a new browser context (no
 * credentials cached, nothing visited before) for each page, against `campaign serve` (in this process, with a
 * dashboard password). The browser sends basic-auth credentials unasked only below the path that asked for them
 * (/campaigns/ here), so the pages' calls to /api/v1 must get the challenge to be sent with them; the New campaign
 * page and a finished campaign's Retarget form then list the templates, also when loaded again with nobody answering
 * a challenge (the browser's own credentials for the realm, as after an operator typed them at its prompt).
 */
const USER = 'operator';
const PASSWORD = 'direct-open-test-password';
/** A cancelled campaign: its page has the Retarget form. */
const FINISHED = 'direct-open-cancelled';
/** Template names of samples/templates.json (APPROVED ones). */
const A_TEMPLATE = 'order_update';

describe('dashboard pages opened directly in a fresh browser', () => {
  const prefix = freshPrefix('direct-open');
  let redis: Redis;
  let service: RunningService;
  let browser: Browser | undefined;

  beforeAll(async () => {
    redis = testRedis();
    const ledger = new RedisLedger(redis, prefix);
    await ingestQueuedCampaign(ledger, FINISHED, 3);
    await new CampaignControls({ ledger }).cancel(FINISHED);
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      {
        REDIS_URL: redisUrl(),
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'silent',
        WHATSAPP_APP_SECRET: 'direct-open-secret',
        WEBHOOK_VERIFY_TOKEN: 'direct-open-verify',
        WHATSAPP_PHONE_NUMBER_ID: LEDGER_TEST_NUMBER,
        TEMPLATES_FILE: SAMPLE_TEMPLATES,
        DASHBOARD_USER: USER,
        DASHBOARD_PASSWORD: PASSWORD,
      },
      silentLogger(),
    );
    browser = await launchTestBrowser();
  });

  afterAll(async () => {
    await closeTestBrowser(browser);
    await service?.close();
    await removePrefix(redis, prefix);
    redis.disconnect();
  });

  /** A page in a browser context of its own, which answers the dashboard's challenge as an operator typing the password would. */
  async function freshPage(): Promise<Page> {
    const context = await (browser as Browser).createBrowserContext();
    const page = await context.newPage();
    await page.authenticate({ username: USER, password: PASSWORD });
    return page;
  }

  /**
   * Opens `path` in a fresh page, waits until `listed` (a script's condition) holds, then again with nobody answering a
   * challenge: puppeteer stops answering, and the page is loaded again. Its own path is below the one the password was
   * given for (sent unasked), /api/v1 is not: the browser sends the credentials it keeps for the realm only when the
   * call is challenged.
   */
  async function openDirectly(path: string, listed: (page: Page) => Promise<unknown>): Promise<void> {
    const page = await freshPage();
    try {
      expect((await page.goto(`${service.url}${path}`, { waitUntil: 'load' }))?.status()).toBe(200);
      await listed(page);
      await page.authenticate(null);
      expect((await page.reload({ waitUntil: 'load' }))?.status()).toBe(200);
      await listed(page);
    } finally {
      await page.browserContext().close();
    }
  }

  it('answers a page call without credentials 401 with the dashboard challenge, and a token client 401 without it', async () => {
    const page = await (await fetch(`${service.url}/campaigns/new`, { headers: { authorization: basicAuth() } })).text();
    const token = /data-csrf-token="([^"]+)"/.exec(page)?.[1] ?? '';
    expect(token).not.toBe('');
    const fromPage = await fetch(`${service.url}/api/v1/templates`, { headers: { 'x-csrf-token': token } });
    expect(fromPage.status).toBe(401);
    expect(fromPage.headers.get('www-authenticate')).toBe('Basic realm="campaign-worker dashboard", charset="UTF-8"');
    expect(((await fromPage.json()) as { code: string }).code).toBe('API_TOKEN_MISSING');
    // A client of the API (no page's token) is not asked for the dashboard's password.
    const client = await fetch(`${service.url}/api/v1/templates`);
    expect(client.status).toBe(401);
    expect(client.headers.get('www-authenticate')).toBeNull();
    // With the credentials the browser sends after the challenge, the same call is answered.
    const again = await fetch(`${service.url}/api/v1/templates`, { headers: { 'x-csrf-token': token, authorization: basicAuth() } });
    expect(again.status).toBe(200);
  });

  it('lists the templates on the New campaign page opened directly', async () => {
    await openDirectly('/campaigns/new', async (page) => {
      await page.waitForFunction(
        `document.querySelector('#new-campaign[data-ready="1"]') || !document.querySelector('#nc-load-error').hidden`,
        {
          timeout: 15_000,
        },
      );
      expect(await page.evaluate(`document.querySelector('#nc-load-error').textContent`)).toBe('');
      expect(await page.evaluate(optionValues('#nc-template'))).toContain(A_TEMPLATE);
      expect(await page.evaluate(optionValues('#nc-number'))).toContain(LEDGER_TEST_NUMBER);
    });
  });

  it("lists the templates in the Retarget form of a finished campaign's page opened directly", async () => {
    const options = optionValues('form#retarget select[name="template"]');
    await openDirectly(`/campaigns/${FINISHED}`, async (page) => {
      await page.waitForSelector('form#retarget');
      const status = `document.querySelector('form#retarget [data-retarget-status]').textContent`;
      await page.waitForFunction(`${options}.includes(${JSON.stringify(A_TEMPLATE)}) || ${status} !== ''`, { timeout: 15_000 });
      expect(await page.evaluate(status)).toBe('');
      expect(await page.evaluate(options)).toContain(A_TEMPLATE);
    });
  });
});

/** A script that lists the values of a select's options (run in the page: the tests have no DOM types). */
function optionValues(select: string): string {
  return `Array.from(document.querySelectorAll(${JSON.stringify(`${select} option`)})).map((o) => o.value)`;
}

function basicAuth(): string {
  return `Basic ${Buffer.from(`${USER}:${PASSWORD}`).toString('base64')}`;
}
