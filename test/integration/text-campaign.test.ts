import { createHmac } from 'node:crypto';
import { readFile, writeFile } from 'node:fs/promises';
import { parse } from 'csv-parse/sync';
import type { FastifyInstance } from 'fastify';
import type { Redis } from 'ioredis';
import { afterEach, describe, expect, it } from 'vitest';
import { writeReport } from '../../src/campaigns/report/report.js';
import { loadConfig } from '../../src/config/config.js';
import { Secret } from '../../src/config/secret.js';
import { AppError } from '../../src/errors/app-error.js';
import { silentLogger } from '../../src/logging/logger.js';
import { WebhookConsumer } from '../../src/webhooks/webhook-consumer.js';
import { optOutMatcher } from '../../src/webhooks/webhook-events.js';
import { RedisWebhookInbox, createWebhookRedis } from '../../src/webhooks/webhook-inbox.js';
import { buildWebhookServer } from '../../src/webhooks/webhook-server.js';
import type { AppContext } from '../../src/app/app-context.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { runCli } from '../support/cli-process.js';
import { phoneNumber } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, pipelinePerTest, type Pipeline } from '../support/pipeline.js';
import { redisUrl, testRedis } from '../support/redis.js';

/**
 * Text campaigns (`campaign send FILE --text "Hi {{name}}…"`) against a real Redis, the
 * webhook service's intake and consumer (signed POSTs, as Meta sends them) and the sandbox:
 * windows opened by users' messages decide WINDOW_CLOSED at ingest, the worker sends each row
 * its filled text, and a `failed` 131047 status fails the row.
 */
const SECRET = 'text-campaign-app-secret-42';
const REENGAGEMENT = 'Message failed to send because more than 24 hours have passed since the customer last replied to this number.';

interface Service {
  url: string;
  /** Waits until the consumer has applied the next POST (it blocks on the inbox stream for it). */
  applied(): Promise<void>;
}

describe('text campaigns (real Redis, webhook service, sandbox)', () => {
  const frame = pipelinePerTest();
  const closers: (() => Promise<unknown>)[] = [];

  afterEach(async () => {
    for (const close of closers.splice(0).reverse()) await close();
  });

  /** The webhook service's intake (signature checked, body into the inbox) and the consumer `campaign serve` runs with it. */
  async function startService(p: Pipeline): Promise<Service> {
    const inboxRedis = createWebhookRedis(redisUrl(), silentLogger());
    closers.push(() => inboxRedis.quit());
    // The intake's connection queues nothing while it connects (a POST then gets 503, which Meta
    // retries): the test's first POST waits until it is up.
    if (inboxRedis.status !== 'ready') await new Promise((resolve) => inboxRedis.once('ready', resolve));
    const inbox = new RedisWebhookInbox(inboxRedis, p.prefix);
    const app: FastifyInstance = buildWebhookServer({
      inbox,
      verifyToken: new Secret('text-verify-token'),
      appSecrets: [new Secret(SECRET)],
      logger: silentLogger(),
      redisReady: () => inbox.ready(),
    });
    await app.listen({ port: 0, host: '127.0.0.1' });
    closers.push(() => app.close());
    const reader: Redis = testRedis();
    closers.push(() => reader.quit());
    const consumer = new WebhookConsumer({
      redis: reader,
      prefix: p.prefix,
      ledger: p.ledger,
      logger: silentLogger(),
      consumer: 'text-test',
      isOptOut: optOutMatcher(['STOP']),
      blockMs: 200,
      parkedRetryMs: 0,
    });
    const address = app.server.address();
    if (address === null || typeof address === 'string') throw new Error('no TCP address');
    return {
      url: `http://127.0.0.1:${address.port}`,
      async applied() {
        while ((await consumer.processOnce()) === 0);
      },
    };
  }

  /** POSTs a body to /webhook signed with the app secret, as Meta does; the service must answer 200. */
  async function post(service: Service, body: object): Promise<void> {
    const raw = JSON.stringify(body);
    const signature = `sha256=${createHmac('sha256', SECRET).update(raw).digest('hex')}`;
    const response = await fetch(`${service.url}/webhook`, {
      method: 'POST',
      body: raw,
      headers: { 'content-type': 'application/json', 'x-hub-signature-256': signature },
    });
    expect(response.status).toBe(200);
    await service.applied();
  }

  function envelope(value: object): object {
    return {
      object: 'whatsapp_business_account',
      entry: [
        {
          id: '100000000000001',
          changes: [
            {
              field: 'messages',
              value: {
                messaging_product: 'whatsapp',
                metadata: { display_phone_number: '15550783881', phone_number_id: PHONE_NUMBER_ID },
                ...value,
              },
            },
          ],
        },
      ],
    };
  }

  /** The users of these rows write to the number `secondsAgo` seconds ago: a signed inbound webhook through the service. */
  async function wroteIn(service: Service, rows: number[], secondsAgo = 60, words = 'Where is my order?'): Promise<void> {
    const at = String(Math.floor(Date.now() / 1000) - secondsAgo);
    await post(
      service,
      envelope({
        contacts: rows.map((n) => ({ profile: { name: `User ${n}` }, wa_id: phoneNumber(n).slice(1) })),
        messages: rows.map((n) => ({
          from: phoneNumber(n).slice(1),
          id: `wamid.inbound.${n}.${at}`,
          timestamp: at,
          type: 'text',
          text: { body: words },
        })),
      }),
    );
  }

  /** What `campaign send` gets from its composition root, on the pipeline's Redis and prefix. */
  function context(p: Pipeline): AppContext {
    const config = loadConfig({
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: p.prefix,
      LOG_LEVEL: 'silent',
      REPORTS_DIR: frame.csvPath('reports'),
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
    });
    return { config, logger: silentLogger(), redis: p.redis, ledger: p.ledger, close: () => Promise.resolve() };
  }

  /** phone,name,order_id,note for rows 1..n (row 2's note spans two lines). */
  async function csv(n: number): Promise<string> {
    const path = frame.csvPath('text.csv');
    const lines = ['phone,name,order_id,note'];
    for (let i = 1; i <= n; i++) lines.push(`${phoneNumber(i)},Name${i} 🎉,A-${i},${i === 2 ? '"two\nlines"' : `note ${i}`}`);
    await writeFile(path, lines.join('\n') + '\n');
    return path;
  }

  const TEXT = 'Hi {{name}}, your order {{order_id}} has shipped: https://shop.example.com/t/{{order_id}}\n{{note}}';
  const filled = (i: number) =>
    `Hi Name${i} 🎉, your order A-${i} has shipped: https://shop.example.com/t/A-${i}\n${i === 2 ? 'two\nlines' : `note ${i}`}`;

  async function reportRows(p: Pipeline, id: string): Promise<Record<string, string>[]> {
    const path = frame.csvPath(`${id}.report.csv`);
    await writeReport(p.ledger, id, path);
    return parse<Record<string, string>>(await readFile(path, 'utf8'), { columns: true });
  }

  it(
    'ingest: rows whose recipient wrote in (signed inbound webhooks) are queued, the rest skipped ' +
      'WINDOW_CLOSED, in the summary and the rejects file; a dry run counts the same',
    async () => {
      const p = await frame.start({ label: 'text-ingest' });
      const service = await startService(p);
      const file = await csv(6);
      await wroteIn(service, [1, 3]);
      await wroteIn(service, [4], 25 * 3600); // 25 hours ago: its window has closed
      await wroteIn(service, [6], 60, 'STOP'); // opens a window, and opts out: not sent
      const send = (more: Partial<SendOptions> = {}) => runSend(context(p), { file, text: TEXT, phoneColumn: 'phone', ...more });

      const dry = await send({ dryRun: true });
      expect(dry).toMatchObject({ dryRun: true, rows: 6, valid: 2, skipped: 4, rejected: 0, byReason: { WINDOW_CLOSED: 3, OPTED_OUT: 1 } });
      expect(await p.ledger.listCampaigns()).toStrictEqual([]);

      const summary = await send({ campaign: 'txt-ingest' });
      expect(summary).toMatchObject({ rows: 6, valid: 2, queued: 2, skipped: 4, byReason: { WINDOW_CLOSED: 3, OPTED_OUT: 1 } });
      const rows = await reportRows(p, 'txt-ingest');
      expect(rows.map((r) => [r.row, r.status, r.error_code])).toStrictEqual([
        ['1', 'queued', ''],
        ['2', 'skipped', 'WINDOW_CLOSED'],
        ['3', 'queued', ''],
        ['4', 'skipped', 'WINDOW_CLOSED'],
        ['5', 'skipped', 'WINDOW_CLOSED'],
        ['6', 'skipped', 'OPTED_OUT'],
      ]);
      const rejects = parse<Record<string, string>>(await readFile(summary.rejectsFile ?? '', 'utf8'), { columns: true });
      // Rows skipped at a chunk's window lookup are written when it is answered, after the chunk's other refusals.
      rejects.sort((a, b) => Number(a.row) - Number(b.row));
      expect(rejects.map((r) => [r.row, r.phone])).toStrictEqual([
        ['2', phoneNumber(2)],
        ['4', phoneNumber(4)],
        ['5', phoneNumber(5)],
        ['6', phoneNumber(6)],
      ]);
      expect(rejects[0]?.reason).toMatch(/^WINDOW_CLOSED: line 3: the recipient has not written to this number in the last 24 hours/);
      expect(await p.ledger.getCampaign('txt-ingest')).toMatchObject({
        text: { body: TEXT, previewUrl: false, columns: ['name', 'order_id', 'note'] },
      });
      expect(await p.ledger.getCampaign('txt-ingest')).not.toHaveProperty('plan');
    },
  );

  it(
    'sends a text campaign end to end: the sandbox accepted type text with each row’s filled body, ' +
      'preview_url and callback data; the report has the wamids',
    async () => {
      const p = await frame.start({ label: 'text-send' });
      const service = await startService(p);
      const file = await csv(3);
      await wroteIn(service, [1, 2, 3]);
      for (const n of [1, 2, 3]) p.sandbox.openServiceWindow(phoneNumber(n));
      p.startWorker();

      const summary = await runSend(context(p), { file, text: TEXT, previewUrl: true, phoneColumn: 'phone', campaign: 'txt-send' });
      expect(summary).toMatchObject({ queued: 3, skipped: 0, rejected: 0 });
      await p.completed('txt-send');

      const accepted = p.sandbox.accepted();
      expect(accepted.map((m) => m.body).sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)))).toStrictEqual(
        [1, 2, 3].map((n) => ({
          messaging_product: 'whatsapp',
          recipient_type: 'individual',
          to: phoneNumber(n),
          type: 'text',
          text: { preview_url: true, body: filled(n) },
          biz_opaque_callback_data: `txt-send/${n}`,
        })),
      );
      const rows = await reportRows(p, 'txt-send');
      const wamidTo = new Map(accepted.map((m) => [m.wamid, m.to]));
      expect(rows.map((r) => [r.status, wamidTo.get(r.message_id ?? '')])).toStrictEqual([1, 2, 3].map((n) => ['sent', phoneNumber(n)]));
    },
  );

  it(
    'a failed status with 131047 (the window closed before the send) by signed webhook ' +
      'fails that text row: failed 131047 in the report',
    async () => {
      const p = await frame.start({ label: 'text-131047' });
      const service = await startService(p);
      const file = await csv(2);
      await wroteIn(service, [1, 2]);
      for (const n of [1, 2]) p.sandbox.openServiceWindow(phoneNumber(n));
      p.startWorker();
      await runSend(context(p), { file, text: 'Hi {{name}}', phoneColumn: 'phone', campaign: 'txt-fail' });
      await p.completed('txt-fail');
      const before = await reportRows(p, 'txt-fail');
      expect(before.map((r) => r.status)).toStrictEqual(['sent', 'sent']);
      const wamid = before[1]?.message_id ?? '';

      await post(
        service,
        envelope({
          statuses: [
            {
              id: wamid,
              status: 'failed',
              timestamp: String(Math.floor(Date.now() / 1000)),
              recipient_id: phoneNumber(2).slice(1),
              biz_opaque_callback_data: 'txt-fail/2',
              errors: [
                { code: 131047, title: 'Re-engagement message', message: 'Re-engagement message', error_data: { details: REENGAGEMENT } },
              ],
            },
          ],
        }),
      );

      const after = await reportRows(p, 'txt-fail');
      expect(after.map((r) => [r.row, r.status, r.error_code])).toStrictEqual([
        ['1', 'sent', ''],
        ['2', 'failed', '131047'],
      ]);
      expect(after[1]?.error_detail).toBe(REENGAGEMENT);
      expect((await p.ledger.status('txt-fail'))?.counts).toMatchObject({ sent: 1, failed: 1 });
    },
  );

  it.each<[string, Partial<SendOptions>, string, RegExp]>([
    [
      '--text with --template',
      { template: 'order_update', language: 'en_US' },
      'OPTION_INVALID',
      /--text sends a free-form text, --template and --language an approved template: give one or the other/,
    ],
    [
      '--text with --params',
      { params: ['name'] },
      'OPTION_INVALID',
      /--params is for templates; with --text, name each column in the text itself as \{\{column\}\}/,
    ],
    ['--text with a stray brace', { text: 'Hi {{name' }, 'OPTION_INVALID', /stray "\{\{"/],
    [
      '--text naming a column the file lacks',
      { text: 'Hi {{first_name}}' },
      'CSV_HEADER_INVALID',
      /\{\{first_name\}\} names no column of the file\. Columns found: "phone", "name", "order_id", "note"/,
    ],
    [
      'neither --text nor --template',
      { text: undefined },
      'OPTION_INVALID',
      /say what to send: --template NAME --language CODE .* or --text/,
    ],
    [
      '--preview-url without --text',
      { text: undefined, template: 'order_update', language: 'en_US', previewUrl: true },
      'OPTION_INVALID',
      /--preview-url applies to --text only/,
    ],
    [
      '--template without --language',
      { text: undefined, template: 'order_update' },
      'OPTION_INVALID',
      /--template order_update needs --language CODE/,
    ],
  ])('%s is refused with %s saying how to fix it, and creates nothing', async (_label, options, code, said) => {
    const p = await frame.start({ label: 'text-options' });
    const file = await csv(1);
    const refused = await runSend(context(p), { file, text: 'Hi {{name}}', phoneColumn: 'phone', ...options }).then(
      () => undefined,
      (error: unknown) => error,
    );
    expect(refused).toBeInstanceOf(AppError);
    expect((refused as AppError).code).toBe(code);
    expect((refused as AppError).message).toMatch(said);
    expect(await p.ledger.listCampaigns()).toStrictEqual([]);
  });

  it('through the CLI: --help lists --text and --preview-url; send --text, then status and list show kind text', async () => {
    const p = await frame.start({ label: 'text-cli' });
    const service = await startService(p);
    const file = await csv(2);
    await wroteIn(service, [2]);
    const env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: p.prefix,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      LOG_LEVEL: 'warn',
      REPORTS_DIR: frame.csvPath('reports'),
    };

    const help = await runCli(['send', '--help'], env);
    const words = help.stdout.replace(/\s+/g, ' ');
    expect(words).toContain('--text <body> send this free-form text instead of a template; {{column}} is filled from that CSV column');
    expect(words).toContain('--preview-url with --text: show a preview of the first http(s) link');

    // Neither --text nor --template (commander's required option before there was --text).
    const neither = await runCli(['send', file], env);
    expect(neither.code).toBe(2);
    expect(neither.stderr).toMatch(
      /^campaign: OPTION_INVALID: say what to send: --template NAME --language CODE .* or --text "Hi \{\{name\}\}, …"/m,
    );

    const send = await runCli(['send', file, '--text', 'Hi {{name}}', '--campaign', 'txt-cli', '--json'], env);
    expect(send.code, send.stderr).toBe(0);
    expect(JSON.parse(send.stdout)).toMatchObject({ id: 'txt-cli', rows: 2, queued: 1, skipped: 1, byReason: { WINDOW_CLOSED: 1 } });

    const status = await runCli(['status', 'txt-cli', '--json'], env);
    expect(JSON.parse(status.stdout)).toMatchObject({ id: 'txt-cli', kind: 'text', template: null, language: null, queued: 1, skipped: 1 });
    expect((await runCli(['status', 'txt-cli'], env)).stdout).toContain('  sends text "Hi {{name}}"');
    const list = await runCli(['list', '--json'], env);
    expect(JSON.parse(list.stdout)).toMatchObject([{ id: 'txt-cli', kind: 'text' }]);
  });
});
