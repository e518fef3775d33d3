import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, describe, expect, it } from 'vitest';
import { startWorker, type RunningWorker } from '../../workers/worker.js';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import { runSend } from '../../src/cli/run/send.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { CliProcess } from '../support/cli-process.js';
import { tempDir } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';
import { postSignedWebhook } from '../support/signed-webhook.js';

const SECRET = 'optout-during-campaign-secret';
const TOKEN = 'optout-during-campaign-token';
const LISTENING = /Webhook service listening on (http:\/\/127\.0\.0\.1:\d+)/;
/** Five sends a second: the rows at the end of the file wait seconds for their turn. */
const SEND_RATE = '5';
const ROWS = 10;
const phoneOf = (row: number) => `+49151200000${String(row).padStart(2, '0')}`;
/** Near the end of the file: still waiting when their STOPs come. */
const BY_KEYWORD = phoneOf(9);
const BY_PREFERENCES = phoneOf(10);

/** Meta's `user_preferences` webhook (reference §3.5): the user stopped marketing messages in WhatsApp. */
function preferencesWebhook(waId: string, at: number): string {
  const value = {
    messaging_product: 'whatsapp',
    metadata: { display_phone_number: '15550000000', phone_number_id: PHONE_NUMBER_ID },
    user_preferences: [
      { wa_id: waId, detail: 'User requested to stop marketing messages', category: 'marketing_messages', value: 'stop', timestamp: at },
    ],
  };
  return JSON.stringify({ object: 'whatsapp_business_account', entry: [{ id: '1', changes: [{ field: 'user_preferences', value }] }] });
}

/** Signed with this file's app secret, as Meta signs it. */
function signedPost(url: string, body: string | Buffer): Promise<number> {
  return postSignedWebhook(url, SECRET, body);
}

/**
 * Opt-outs are checked at send time, end to end: a MARKETING campaign paced slowly by the real
 * worker against the sandbox, a real `campaign serve` taking the webhooks. A STOP keyword (the
 * sandbox plays the user's message) and a `user_preferences` stop (signed POST) arrive while
 * those recipients' rows wait: the rows end `skipped` `OPTED_OUT` and the sandbox never
 * receives a message for them; every other row is sent.
 */
describe('a STOP during a running campaign', () => {
  let serve: CliProcess | undefined;
  let sandbox: Sandbox | undefined;
  let context: AppContext | undefined;
  let worker: RunningWorker | undefined;
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  const prefix = freshPrefix('optout-running');

  afterEach(async () => {
    await worker?.close();
    await serve?.stop('SIGKILL');
    if (context !== undefined) {
      await removePrefix(context.redis, prefix);
      await context.close();
    }
    await sandbox?.close();
    await dir?.cleanup();
  });

  it('skips that recipient’s waiting rows as OPTED_OUT before they are sent; the sandbox never receives them', async () => {
    serve = new CliProcess(['serve', '--port', '0', '--host', '127.0.0.1'], {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_APP_SECRET: SECRET,
      WEBHOOK_VERIFY_TOKEN: 'verify-token',
      LOG_LEVEL: 'info',
    });
    const serveUrl = (await serve.waitFor(LISTENING))[1] ?? '';
    sandbox = await startSandbox({
      templates: await loadTemplatesFile(SAMPLE_TEMPLATES),
      accessToken: TOKEN,
      messagesPerSecond: 0,
      webhooks: { url: `${serveUrl}/webhook`, appSecret: SECRET, sentAfterMs: 5, deliveredAfterMs: 20, readAfterMs: 40, batchMs: 10 },
    });
    dir = await tempDir();
    context = await openContext([], {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      WHATSAPP_API_URL: sandbox.url,
      WHATSAPP_ACCESS_TOKEN: TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      SEND_RATE,
      LOG_LEVEL: 'silent',
      REPORTS_DIR: join(dir.dir, 'reports'),
    });
    const file = join(dir.dir, 'promo.csv');
    const lines = Array.from({ length: ROWS }, (_, i) => `${phoneOf(i + 1)},Name${i + 1},20%,https://example.com/${i + 1}.jpg`);
    await writeFile(file, ['phone,name,discount,banner', ...lines].join('\n') + '\n');

    worker = await startWorker(context);
    const outcome = await runSend(context, {
      file,
      template: 'spring_promo',
      language: 'en_US',
      phoneColumn: 'phone',
      params: ['name', 'discount'],
      headerImageColumn: 'banner',
      // The banner's link is an example one: sent as the link, as Meta would fetch it.
      mediaBy: 'link',
      campaign: 'promo',
      templatesFile: SAMPLE_TEMPLATES,
    });
    expect(outcome).toMatchObject({ rows: ROWS, queued: ROWS, skipped: 0 });
    const ledger = context.ledger;
    const box = sandbox;
    await waitFor(() => Promise.resolve(box.accepted().length), { what: 'the first send', until: (n) => n >= 1, timeoutMs: 5000 });

    // The user writes STOP (the sandbox posts Meta's signed `messages` webhook to serve), and
    // another stops marketing in WhatsApp's settings (a signed `user_preferences` webhook).
    const inbound = await fetch(`${box.url}/_sandbox/inbound`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ from: BY_KEYWORD, text: 'STOP' }),
    });
    expect(inbound.status).toBe(200);
    expect(await signedPost(serveUrl, preferencesWebhook(BY_PREFERENCES.slice(1), Math.floor(Date.now() / 1000)))).toBe(200);
    await waitFor(async () => ledger.optOuts(PHONE_NUMBER_ID), {
      what: 'both opt-outs recorded',
      until: (found) => found.has(BY_KEYWORD) && found.has(BY_PREFERENCES),
      timeoutMs: 1000,
    });
    // Their rows were still waiting when the opt-outs landed: the claim is what stops them.
    const sentSoFar = new Set(box.accepted().map((m) => m.to));
    expect(sentSoFar.has(BY_KEYWORD) || sentSoFar.has(BY_PREFERENCES)).toBe(false);

    await waitFor(async () => (await ledger.status('promo'))?.state, {
      what: 'the campaign completed',
      until: (state) => state === 'completed',
      timeoutMs: 15_000,
    });
    const rows: RowRecord[] = [];
    for await (const page of ledger.rows('promo')) rows.push(...page);
    const byPhone = new Map(rows.map((r) => [r.phone, r]));
    for (const phone of [BY_KEYWORD, BY_PREFERENCES]) {
      expect(byPhone.get(phone)).toMatchObject({ status: 'skipped', errorCode: 'OPTED_OUT' });
    }
    expect(byPhone.get(BY_KEYWORD)?.errorDetail).toMatch(/opt-out keyword/);
    expect(byPhone.get(BY_PREFERENCES)?.errorDetail).toMatch(/stopped marketing messages in WhatsApp/);
    expect(rows.filter((r) => r.status === 'sent')).toHaveLength(ROWS - 2);
    // The sandbox's record of what it received: every other recipient once, these never.
    const received = box
      .accepted()
      .map((m) => m.to)
      .sort();
    expect(received).toStrictEqual(Array.from({ length: ROWS - 2 }, (_, i) => phoneOf(i + 1)));
  }, 30_000);
});
