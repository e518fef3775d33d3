import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { readFile, writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app/app-context.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import type { StatusUpdate } from '../../src/campaigns/ledger.js';
import { SendProcessor } from '../../src/campaigns/send/send-processor.js';
import { summaryText } from '../../src/cli/format.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { CloudApiClient } from '../../src/cloud-api/cloud-api-client.js';
import { Secret } from '../../src/config/secret.js';
import { silentLogger } from '../../src/logging/logger.js';
import { startSendWorker, type RunningSendWorker } from '../../src/queue/send-worker.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { parseWebhook } from '../../src/webhooks/webhook-events.js';
import { testContext } from '../support/app-context.js';
import { tempDir } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix } from '../support/redis.js';

const PHONE_NUMBER_ID = '106540352242922';
const TOKEN = 'us-marketing-token';
const SECRET = 'us-marketing-secret';

/** spring_promo is MARKETING: two US numbers, a Canadian +1 number and a German one. */
const PROMO_ROWS = [
  'phone,name,discount,banner',
  '+12125550101,Ana,25%,https://example.com/a.jpg', //  row 1, US (New York)
  '+14165550102,Bruno,25%,https://example.com/b.jpg', // row 2, Canada (Toronto)
  '+4915110000003,Carla,25%,https://example.com/c.jpg', // row 3, Germany
  '+13125550104,Dan,25%,https://example.com/d.jpg', //   row 4, US (Chicago)
];
const US = ['+12125550101', '+13125550104'];

/**
 * Meta has paused MARKETING templates to US numbers (it fails them with 131049): through the
 * real producer, worker and sandbox, such rows are skipped at ingest (MARKETING_US_PAUSED) in
 * the dry run and the send, and with --allow-us-marketing they are sent and the sandbox fails
 * them by webhook with 131049, as Meta does.
 */
describe('MARKETING templates and US numbers, end to end', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let sandbox: Sandbox;
  let context: AppContext;
  let worker: RunningSendWorker | undefined;
  let client: CloudApiClient;
  let receiver: Server;
  let statuses: StatusUpdate[];
  let completed: Map<string, () => void>;

  beforeEach(async () => {
    dir = await tempDir();
    statuses = [];
    receiver = createServer((req, res) => {
      const chunks: Buffer[] = [];
      req.on('data', (c: Buffer) => chunks.push(c));
      req.on('end', () => {
        const parsed = parseWebhook(Buffer.concat(chunks));
        if (parsed.ok) statuses.push(...parsed.events.statuses);
        res.writeHead(200).end();
      });
    });
    await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', () => resolve()));
    const url = `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/webhook`;
    sandbox = await startSandbox({
      templates: await loadTemplatesFile(SAMPLE_TEMPLATES),
      accessToken: TOKEN,
      messagesPerSecond: 0,
      webhooks: { url, appSecret: SECRET, sentAfterMs: 5, deliveredAfterMs: 20, readAfterMs: 40, readShare: 0, batchMs: 10 },
    });
    context = testContext(freshPrefix('us-marketing'), {
      REPORTS_DIR: join(dir.dir, 'reports'),
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      TEMPLATES_FILE: SAMPLE_TEMPLATES,
      SEND_RATE: '0',
    });
    client = new CloudApiClient({ baseUrl: sandbox.url, apiVersion: 'v23.0', accessToken: new Secret(TOKEN), timeoutMs: 5000 });
    completed = new Map();
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await client.close();
    await context.close();
    await sandbox.close();
    await new Promise<void>((resolve) => receiver.close(() => resolve()));
    await dir.cleanup();
  });

  function startWorker(): void {
    const processor = new SendProcessor({
      ledger: context.ledger,
      sender: client,
      logger: silentLogger(),
      onCampaignCompleted: (id) => completed.get(id)?.(),
    });
    worker = startSendWorker({
      connection: context.redis,
      prefix: context.config.queuePrefix,
      phoneNumberId: PHONE_NUMBER_ID,
      rate: 0,
      concurrency: 5,
      processor,
      ledger: context.ledger,
      logger: silentLogger(),
      attempts: 3,
      backoffMs: 50,
    });
  }

  function completion(id: string): Promise<void> {
    return new Promise((resolve) => completed.set(id, resolve));
  }

  async function promoFile(): Promise<string> {
    const file = join(dir.dir, 'promo.csv');
    await writeFile(file, PROMO_ROWS.join('\n') + '\n');
    return file;
  }

  const send = (file: string, options: Partial<SendOptions> & { campaign: string }) =>
    runSend(context, {
      file,
      template: 'spring_promo',
      language: 'en_US',
      phoneColumn: 'phone',
      params: ['name', 'discount'],
      headerImageColumn: 'banner',
      // The banner's link is an example one: sent as the link, as Meta would fetch it.
      mediaBy: 'link',
      ...options,
    });

  async function rowsOf(id: string): Promise<RowRecord[]> {
    const all: RowRecord[] = [];
    for await (const page of context.ledger.rows(id)) all.push(...page);
    return all;
  }

  async function rejectsOf(file: string | undefined): Promise<{ row: string; phone: string; reason: string }[]> {
    return parse<{ row: string; phone: string; reason: string }>(await readFile(file ?? '', 'utf8'), { columns: true });
  }

  it('skips the US rows as MARKETING_US_PAUSED in the dry run and the send, and sends the rest (Canada included)', async () => {
    const file = await promoFile();
    const dry = await send(file, { campaign: 'c-us', dryRun: true });
    expect(dry).toMatchObject({ rows: 4, valid: 2, skipped: 2, rejected: 0, byReason: { MARKETING_US_PAUSED: 2 } });
    const line = summaryText(dry, 0)
      .split('\n')
      .find((l) => l.includes('MARKETING_US_PAUSED'));
    expect(line).toMatch(/^\s+2 {2}MARKETING_US_PAUSED: a MARKETING template to a US number/);
    expect((await rejectsOf(dry.rejectsFile)).map((r) => [r.row, r.phone])).toEqual([
      ['1', '+12125550101'],
      ['4', '+13125550104'],
    ]);
    expect(await context.ledger.listCampaigns()).toEqual([]);

    const done = completion('c-us');
    startWorker();
    const outcome = await send(file, { campaign: 'c-us' });
    expect(outcome).toMatchObject({ rows: 4, queued: 2, skipped: 2, byReason: { MARKETING_US_PAUSED: 2 } });
    await done;
    const rejects = await rejectsOf(outcome.rejectsFile);
    expect(rejects.map((r) => r.row)).toEqual(['1', '4']);
    expect(rejects[0]?.reason).toMatch(/^MARKETING_US_PAUSED: line 2: a MARKETING template to a US number.*131049/);
    expect(
      sandbox
        .accepted()
        .map((m) => m.to)
        .sort(),
    ).toEqual(['+14165550102', '+4915110000003']);
    const rows = await rowsOf('c-us');
    expect(rows.map((r) => [r.row, r.status, r.errorCode])).toEqual([
      [1, 'skipped', 'MARKETING_US_PAUSED'],
      [2, 'sent', undefined],
      [3, 'sent', undefined],
      [4, 'skipped', 'MARKETING_US_PAUSED'],
    ]);
  });

  it('with --allow-us-marketing sends the US rows, and the sandbox fails them with 131049 by webhook as Meta does', async () => {
    const file = await promoFile();
    const dry = await send(file, { campaign: 'c-us-allowed', dryRun: true, allowUsMarketing: true });
    expect(dry).toMatchObject({ rows: 4, valid: 4, skipped: 0, byReason: {} });

    const done = completion('c-us-allowed');
    startWorker();
    const outcome = await send(file, { campaign: 'c-us-allowed', allowUsMarketing: true });
    expect(outcome).toMatchObject({ rows: 4, queued: 4, skipped: 0 });
    expect(await context.ledger.getCampaign('c-us-allowed')).toMatchObject({ allowUsMarketing: true, category: 'MARKETING' });
    await done;
    const accepted = sandbox.accepted();
    expect(accepted).toHaveLength(4);
    const failedByTo = new Map(accepted.map((m) => [m.to, m.failure?.code]));
    expect(Object.fromEntries(failedByTo)).toEqual({
      '+12125550101': 131049,
      '+14165550102': undefined,
      '+4915110000003': undefined,
      '+13125550104': 131049,
    });

    // The failed statuses the sandbox posted, applied to the rows as `campaign serve` would.
    const usWamids = accepted.filter((m) => US.includes(m.to)).map((m) => m.wamid);
    const deadline = Date.now() + 10_000;
    const failed = () => statuses.filter((s) => s.kind === 'failed');
    while (failed().length < 2 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(failed().map((s) => [s.wamid, s.code])).toEqual(expect.arrayContaining(usWamids.map((w) => [w, '131049'])));
    expect(failed()).toHaveLength(2);
    await context.ledger.applyStatuses(statuses);
    const rows = await rowsOf('c-us-allowed');
    expect(rows.filter((r) => r.status === 'failed').map((r) => [r.phone, r.errorCode])).toEqual([
      ['+12125550101', '131049'],
      ['+13125550104', '131049'],
    ]);
  });

  it('sends a UTILITY template to US numbers: the pause is for marketing only', async () => {
    const file = join(dir.dir, 'utility.csv');
    await writeFile(file, 'phone,first_name,order_id\n+12125550101,Ana,A-1\n+13125550104,Dan,A-2\n');
    const dry = await send(file, {
      campaign: 'c-utility',
      dryRun: true,
      template: 'order_update',
      params: ['first_name', 'order_id'],
      headerImageColumn: undefined,
    });
    expect(dry).toMatchObject({ rows: 2, valid: 2, skipped: 0, byReason: {} });
  });
});
