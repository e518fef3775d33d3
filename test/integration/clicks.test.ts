import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import { runPurge } from '../../src/app/campaign-purge.js';
import { createCampaignDeps } from '../../src/app/create-campaign-deps.js';
import { retargetCampaign } from '../../src/app/retarget-campaign.js';
import { sendCampaign } from '../../src/app/send-campaign.js';
import { writeReport } from '../../src/campaigns/report/report.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { AppError } from '../../src/errors/app-error.js';
import { silentLogger } from '../../src/logging/logger.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { statusText } from '../../src/cli/format.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { startWorker, type RunningWorker } from '../../workers/worker.js';
import { tempDir } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

/**
 * Tracked links through the real pipeline: `campaign send --track-clicks` (the sandbox as the
 * Cloud API, a worker), `serve` answering `GET /c/{token}` at PUBLIC_URL, the report, `status`
 * and `campaign retarget --status clicked|not-clicked`; and the refusals before anything is made.
 */
const TOKEN = 'clicks-token';
const SECRET = 'clicks-app-secret';
const PHONES = ['+4915110000001', '+4915110000002', '+4915110000003', '+4915110000004', '+4915110000005'];
const destinationOf = (phone: string) => `https://shop.example.com/orders/${phone.slice(-2)}?utm_source=whatsapp`;

/** A UTILITY template whose URL button is `${base}{{1}}`, as Meta lists it. */
function trackedTemplate(name: string, body: string, base: string) {
  return {
    name,
    parameter_format: 'POSITIONAL',
    language: 'en_US',
    status: 'APPROVED',
    category: 'UTILITY',
    id: String(2_000_000_000_000_000 + name.length),
    components: [
      { type: 'BODY', text: body, example: { body_text: [['Ana', 'A-1']] } },
      { type: 'BUTTONS', buttons: [{ type: 'URL', text: 'Your order', url: `${base}{{1}}`, example: [`${base}abc`] }] },
    ],
  };
}

describe('tracked links: send --track-clicks, GET /c/{token}, the report, status and retarget', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let prefix: string;
  let service: RunningService;
  let sandbox: Sandbox;
  let context: AppContext;
  let worker: RunningWorker;
  let templatesFile: string;

  beforeAll(async () => {
    dir = await tempDir();
    prefix = freshPrefix('clicks');
    const env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent' };
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      { ...env, WHATSAPP_APP_SECRET: SECRET, WEBHOOK_VERIFY_TOKEN: 'clicks-verify' },
      silentLogger(),
    );
    // The templates point at this `serve`: PUBLIC_URL is its address.
    const samples = JSON.parse(await readFile(SAMPLE_TEMPLATES, 'utf8')) as { data: unknown[] };
    templatesFile = join(dir.dir, 'templates.json');
    const base = `${service.url}/c/`;
    const data = [
      ...samples.data,
      trackedTemplate('order_tracked', 'Hi {{1}}, your order {{2}} has shipped.', base),
      trackedTemplate('order_tracked_reminder', 'Hi {{1}}, your order {{2}} is waiting for you.', base),
    ];
    await writeFile(templatesFile, JSON.stringify({ data }));
    sandbox = await startSandbox({
      templates: await loadTemplatesFile(templatesFile),
      accessToken: TOKEN,
      messagesPerSecond: 0,
      webhooks: { url: `${service.url}/webhook`, appSecret: SECRET, sentAfterMs: 5, deliveredAfterMs: 20, readShare: 0, batchMs: 10 },
    });
    context = await openContext([], {
      ...env,
      WHATSAPP_API_URL: sandbox.url,
      WHATSAPP_ACCESS_TOKEN: TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      SEND_RATE: '0',
      REPORTS_DIR: join(dir.dir, 'reports'),
      PUBLIC_URL: service.url,
    });
    worker = await startWorker(context);
  });

  afterAll(async () => {
    await worker?.close();
    await service?.close();
    await sandbox?.close();
    if (context !== undefined) {
      await removePrefix(context.redis, prefix);
      await context.close();
    }
    await dir?.cleanup();
  });

  const completed = (id: string) =>
    waitFor(async () => context.ledger.status(id), {
      until: (status) => status?.state === 'completed',
      timeoutMs: 15_000,
      what: `campaign ${id} completed`,
    });

  /** `campaign send` of the rows (phone, first_name, order_id, link) with these flags. */
  async function send(name: string, rows: string[][], flags: Partial<SendOptions> = {}) {
    const file = join(dir.dir, `${name}.csv`);
    await writeFile(file, ['phone,first_name,order_id,link', ...rows.map((row) => row.join(','))].join('\n') + '\n');
    return runSend(context, {
      file,
      template: 'order_tracked',
      language: 'en_US',
      params: ['first_name', 'order_id'],
      phoneColumn: 'phone',
      trackClicks: true,
      clickUrlColumn: 'link',
      templatesFile,
      ...flags,
    });
  }

  /** The token each recipient's message carried as its URL button's suffix, as the sandbox received it, by recipient. */
  function tokensSent(since: number): Map<string, string> {
    const tokens = new Map<string, string>();
    for (const message of sandbox.accepted().slice(since)) {
      const body = message.body as { template: { components?: { type: string; sub_type?: string; parameters: { text: string }[] }[] } };
      const button = body.template.components?.find((c) => c.type === 'button' && c.sub_type === 'url');
      if (button?.parameters[0] !== undefined) tokens.set(`+${message.waId}`, button.parameters[0].text);
    }
    return tokens;
  }

  const click = (token: string) => fetch(`${service.url}/c/${token}`, { redirect: 'manual' });

  async function refusal(promise: Promise<unknown>): Promise<AppError> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  }

  it('records clicks on two rows, redirects each to its destination, retargets the others (not-clicked) and them (clicked)', async () => {
    const before = sandbox.accepted().length;
    // The last row's destination is no URL: it is rejected, with its reason, and every other row is sent.
    const rows = PHONES.map((phone, i) => [phone, `Name${i}`, `A-${i}`, destinationOf(phone)]);
    rows.push(['+4915110000006', 'Six', 'A-6', 'not-a-link']);
    const outcome = await send('orders', rows);
    expect(outcome).toMatchObject({ rows: 6, queued: 5, rejected: 1, byReason: { CLICK_URL_INVALID: 1 } });
    await completed(outcome.id);

    // Each message carries its own token in the button: random, URL-safe, nothing of the row in it.
    const tokens = tokensSent(before);
    expect([...tokens.keys()].sort()).toStrictEqual(PHONES);
    expect(new Set(tokens.values()).size).toBe(PHONES.length);
    for (const [phone, token] of tokens) {
      expect(token).toMatch(/^[A-Za-z0-9_-]{22}$/);
      expect(token).not.toContain(phone.slice(-6));
    }

    const [first, second] = PHONES as [string, string];
    const answer = await click(tokens.get(first)!);
    expect(answer.status).toBe(302);
    expect(answer.headers.get('location')).toBe(destinationOf(first));
    expect(answer.headers.get('cache-control')).toBe('no-store');
    expect(answer.headers.get('referrer-policy')).toBe('no-referrer');
    expect((await click(tokens.get(second)!)).headers.get('location')).toBe(destinationOf(second));
    const rowOf = async (phone: string) => {
      for await (const page of context.ledger.rows(outcome.id)) for (const row of page) if (row.phone === phone) return row;
      return undefined;
    };
    const firstClick = (await rowOf(first))?.clickedAt;
    expect(firstClick).toBeGreaterThan(0);
    // A second click counts, and keeps the first time.
    expect((await click(tokens.get(first)!)).status).toBe(302);
    expect(await rowOf(first)).toMatchObject({ clickedAt: firstClick, clicks: 2 });
    expect(await rowOf(second)).toMatchObject({ clicks: 1 });
    expect((await rowOf(PHONES[2]!))?.clickedAt).toBeUndefined();

    // Unknown and malformed tokens: a plain page, nothing said.
    for (const token of ['AAAAAAAAAAAAAAAAAAAAAA', 'short', `${tokens.get(first)!}x`, '']) {
      const unknown = await click(token);
      expect(unknown.status, token).toBe(404);
      expect(unknown.headers.get('content-type')).toMatch(/^text\/html/);
      expect(await unknown.text()).toContain('Link not found');
    }

    // The report, `status` and the counts say it.
    const status = await context.ledger.status(outcome.id);
    expect(status?.counts).toMatchObject({ sent: 5, clicked: 2 });
    expect(statusText(status!)).toMatch(/, clicked 2\)/);
    const reportPath = join(dir.dir, 'report.csv');
    await writeReport(context.ledger, outcome.id, reportPath);
    const report = parse<Record<string, string>>(await readFile(reportPath, 'utf8'), { columns: true });
    const line = (phone: string) => report.find((r) => r.phone === phone);
    expect(line(first)).toMatchObject({ clicked_at: new Date(firstClick!).toISOString(), clicks: '2' });
    expect(line(PHONES[4]!)).toMatchObject({ clicked_at: '', clicks: '' });
    expect(line('+4915110000006')).toMatchObject({ status: 'rejected', error_code: 'CLICK_URL_INVALID' });

    // retarget --status not-clicked takes the three others, with their destinations, tracked again with new tokens.
    const sentBefore = sandbox.accepted().length;
    const others = await retargetCampaign(context, {
      campaignId: outcome.id,
      rule: { status: 'not-clicked' },
      message: {
        template: 'order_tracked_reminder',
        language: 'en_US',
        params: ['first_name', 'order_id'],
        trackClicks: true,
        clickUrlColumn: 'link',
      },
      names: CLI_FIELD_NAMES,
      templatesFile: { path: templatesFile, name: '--templates' },
    });
    expect(others).toMatchObject({ rows: 3, queued: 3 });
    await completed(others.id);
    const again = tokensSent(sentBefore);
    expect([...again.keys()].sort()).toStrictEqual(PHONES.slice(2));
    for (const [phone, token] of again) {
      expect(token).not.toBe(tokens.get(phone));
      expect((await click(token)).headers.get('location')).toBe(destinationOf(phone));
    }
    expect((await context.ledger.status(others.id))?.counts).toMatchObject({ clicked: 3 });

    // retarget --status clicked takes the two, here with a template without a tracked link.
    const clicked = await retargetCampaign(context, {
      campaignId: outcome.id,
      rule: { status: 'clicked' },
      message: { template: 'order_update', language: 'en_US', params: ['first_name', 'order_id'] },
      names: CLI_FIELD_NAMES,
      templatesFile: { path: templatesFile, name: '--templates' },
    });
    expect(clicked).toMatchObject({ rows: 2, queued: 2 });
    await completed(clicked.id);
    expect((await context.ledger.status(clicked.id))?.counts.clicked).toBeUndefined();

    // Purged, the campaign's links lead nowhere.
    await runPurge(context, outcome.id);
    expect((await click(tokens.get(first)!)).status).toBe(404);
  });

  it("answers recipients without the pages' password: /c/ is outside it", async () => {
    const guarded = await startService(
      { port: 0, host: '127.0.0.1' },
      {
        REDIS_URL: redisUrl(),
        QUEUE_PREFIX: prefix,
        LOG_LEVEL: 'silent',
        WHATSAPP_APP_SECRET: SECRET,
        WEBHOOK_VERIFY_TOKEN: 'clicks-verify',
        DASHBOARD_PASSWORD: 'a-long-password',
      },
      silentLogger(),
    );
    try {
      expect((await fetch(`${guarded.url}/`)).status).toBe(401);
      const answer = await fetch(`${guarded.url}/c/AAAAAAAAAAAAAAAAAAAAAA`, { redirect: 'manual' });
      expect(answer.status).toBe(404);
      expect(answer.headers.get('www-authenticate')).toBeNull();
      // A HEAD is not a click: no route answers it.
      expect((await fetch(`${guarded.url}/c/AAAAAAAAAAAAAAAAAAAAAA`, { method: 'HEAD' })).status).not.toBe(302);
    } finally {
      await guarded.close();
    }
  });

  it('refuses, before anything is made: no PUBLIC_URL, a button that points elsewhere, a missing destination column', async () => {
    const rows = [[PHONES[0]!, 'Ana', 'A-1', destinationOf(PHONES[0]!)]];
    const file = join(dir.dir, 'refused.csv');
    await writeFile(file, ['phone,first_name,order_id,link', ...rows.map((row) => row.join(','))].join('\n') + '\n');
    const withoutPublicUrl = createCampaignDeps({ ...context, config: { ...context.config, publicUrl: undefined } });
    const flags = {
      template: 'order_tracked',
      language: 'en_US',
      params: ['first_name', 'order_id'],
      trackClicks: true,
      clickUrlColumn: 'link',
      campaign: 'refused-1',
    };
    const templates = { path: templatesFile, name: '--templates' };
    const noPublicUrl = await refusal(sendCampaign(withoutPublicUrl, { flags, names: CLI_FIELD_NAMES, file, templatesFile: templates }));
    expect(noPublicUrl).toMatchObject({ code: 'CLICK_TRACKING_INVALID' });
    expect(noPublicUrl.message).toMatch(/^--track-clicks needs PUBLIC_URL/);

    const elsewhere = await refusal(
      send('refused', rows, { template: 'shipping_update', params: ['first_name', 'order_id', 'order_id'], campaign: 'refused-2' }),
    );
    expect(elsewhere.code).toBe('CLICK_TRACKING_INVALID');
    expect(elsewhere.message).toContain('button 0 links to https://track.example.com/');
    expect(elsewhere.message).toContain(`a tracked link's base URL is ${service.url}/c/`);

    const noColumn = await refusal(send('refused', rows, { clickUrlColumn: 'destination', campaign: 'refused-3' }));
    expect(noColumn.code).toBe('CLICK_TRACKING_INVALID');
    expect(noColumn.message).toContain('the header has no column "destination" (--click-url-column)');

    const noFlag = await refusal(send('refused', rows, { clickUrlColumn: undefined, campaign: 'refused-4' }));
    expect(noFlag.message).toMatch(/^--track-clicks needs --click-url-column COLUMN/);
    for (const id of ['refused-1', 'refused-2', 'refused-3', 'refused-4']) expect(await context.ledger.status(id)).toBeUndefined();
  });
});
