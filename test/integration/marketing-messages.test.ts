import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { AppContext } from '../../src/app/app-context.js';
import { SendProcessor } from '../../src/campaigns/send/send-processor.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { CloudApiClient } from '../../src/cloud-api/cloud-api-client.js';
import { Secret } from '../../src/config/secret.js';
import { AppError } from '../../src/errors/app-error.js';
import { silentLogger } from '../../src/logging/logger.js';
import { startSendWorker, type RunningSendWorker } from '../../src/queue/send-worker.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { testContext } from '../support/app-context.js';
import { tempDir } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

const PHONE_NUMBER_ID = '106540352242922';
const TOKEN = 'marketing-messages-token';

/** spring_promo is MARKETING; none of these numbers is in the US (Meta's US pause is not what this tests). */
const PROMO_ROWS = [
  'phone,name,discount,banner',
  '+4915110000001,Ana,25%,https://example.com/a.jpg',
  '+4915110000002,Bruno,25%,https://example.com/b.jpg',
  '+4915110000003,Carla,25%,https://example.com/c.jpg',
];

/**
 * `send --endpoint marketing-messages` through the real producer, worker, client and sandbox:
 * every row goes to /marketing_messages, a template of another category or a text is refused
 * before the file is read, and a business not onboarded pauses the campaign with what to do.
 */
describe('the Marketing Messages API, end to end', () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let sandbox: Sandbox;
  let context: AppContext;
  let worker: RunningSendWorker | undefined;
  let client: CloudApiClient;
  let completed: Map<string, () => void>;

  beforeEach(async () => {
    dir = await tempDir();
    sandbox = await startSandbox({ templates: await loadTemplatesFile(SAMPLE_TEMPLATES), accessToken: TOKEN, messagesPerSecond: 0 });
    context = testContext(freshPrefix('mm-api'), {
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
      concurrency: 3,
      processor,
      ledger: context.ledger,
      logger: silentLogger(),
      attempts: 3,
      backoffMs: 50,
    });
  }

  async function promoFile(): Promise<string> {
    const file = join(dir.dir, 'promo.csv');
    await writeFile(file, PROMO_ROWS.join('\n') + '\n');
    return file;
  }

  const send = (file: string, options: Partial<SendOptions> & { campaignId: string }) =>
    runSend(context, {
      file,
      template: 'spring_promo',
      language: 'en_US',
      phoneColumn: 'phone',
      params: ['name', 'discount'],
      headerMediaColumn: 'banner',
      endpoint: 'marketing-messages',
      ...options,
    });

  async function refusal(promise: Promise<unknown>): Promise<AppError> {
    try {
      await promise;
    } catch (error) {
      if (error instanceof AppError) return error;
      throw error;
    }
    throw new Error('expected a refusal');
  }

  it('sends every row of a MARKETING template through /marketing_messages, and records the endpoint', async () => {
    const file = await promoFile();
    const done = new Promise<void>((resolve) => completed.set('c-mm', resolve));
    startWorker();
    const outcome = await send(file, { campaignId: 'c-mm' });
    expect(outcome).toMatchObject({ rows: 3, queued: 3 });
    expect(await context.ledger.getCampaign('c-mm')).toMatchObject({ endpoint: 'marketing-messages', category: 'MARKETING' });
    await done;
    const accepted = sandbox.accepted();
    expect(accepted).toHaveLength(3);
    for (const message of accepted) {
      expect(message.endpoint).toBe('marketing_messages');
      expect(message.body).toMatchObject({ type: 'template', template: { name: 'spring_promo' } });
    }
    expect((await context.ledger.status('c-mm'))?.counts).toMatchObject({ sent: 3, failed: 0 });
  });

  it('refuses a UTILITY template and a text before the file is read (it does not even exist)', async () => {
    const missing = join(dir.dir, 'never-written.csv');
    const utility = await refusal(send(missing, { campaignId: 'c-util', template: 'order_update', headerMediaColumn: undefined }));
    expect(utility.code).toBe('OPTION_INVALID');
    expect(utility.message).toMatch(/^--endpoint marketing-messages sends MARKETING templates only; order_update is UTILITY/);
    const text = await refusal(send(missing, { campaignId: 'c-text', template: undefined, language: undefined, text: 'Hi {{name}}' }));
    expect(text.code).toBe('OPTION_INVALID');
    expect(await context.ledger.listCampaigns()).toEqual([]);
    expect(sandbox.stats().requests).toBe(0);
  });

  it('a number not onboarded (134102) pauses the campaign with a reason that says what to do; no row fails', async () => {
    sandbox.setFaults({ marketingMessagesRefusal: { code: 134102 } });
    const file = await promoFile();
    startWorker();
    await send(file, { campaignId: 'c-not-onboarded' });
    const paused = await waitFor(async () => context.ledger.status('c-not-onboarded'), {
      until: (s) => s?.state === 'paused',
      timeoutMs: 10_000,
      what: 'campaign paused on 134102',
    });
    expect(paused?.pausedReason).toMatch(/^134102: .*onboarding in WhatsApp Manager/);
    expect(paused?.counts).toMatchObject({ failed: 0, sent: 0 });
    expect(sandbox.accepted()).toEqual([]);
  });
});
