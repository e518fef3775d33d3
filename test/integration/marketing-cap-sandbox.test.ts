import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { startService, type RunningService } from '../../workers/serve.js';
import { startWorker, type RunningWorker } from '../../workers/worker.js';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import { ledgerOptionsOf } from '../../src/app/ledger-options.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import { runSend } from '../../src/cli/run/send.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/redis-ledger.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { tempDir } from '../support/csv-files.js';
import { SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';
import { TestClock } from '../support/test-clock.js';
import { waitFor } from '../support/waiting.js';

/**
 * Meta's marketing cap (131049) through the real pipeline: the sandbox (its `recipientErrors`
 * fault fails Ana's first send by status webhook with 131049), `campaign serve` (its intake and
 * consumer) and the worker, two numbers of one portfolio. Campaign 1 on number A learns the cap;
 * campaign 2, MARKETING, on number B within 24 h skips Ana as MARKETING_CAP_WAIT and sends the
 * others; a UTILITY campaign still reaches her; once the ledger's clock (the worker's and
 * `send`'s, moved by the test) is past the 24 h, a MARKETING campaign sends to her again.
 */
const TOKEN = 'marketing-cap-token';
const SECRET = 'marketing-cap-secret';
const NUMBER_A = '106540352242922';
const NUMBER_B = '106540352242923';
const ANA = '+4915110000001';
const BRUNO = '+4915110000002';
const CARLA = '+4915110000003';
const DAY = 24 * 3_600_000;

describe("Meta's marketing cap holds for the portfolio for 24 h (sandbox, serve, worker)", () => {
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let prefix: string;
  let service: RunningService;
  let sandbox: Sandbox;
  let context: AppContext;
  let clock: TestClock;
  let worker: RunningWorker | undefined;

  beforeEach(async () => {
    dir = await tempDir();
    prefix = freshPrefix('marketing-cap');
    const env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      PORTFOLIOS: `${NUMBER_A}:retail,${NUMBER_B}:retail`,
    };
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      { ...env, WHATSAPP_APP_SECRET: SECRET, WEBHOOK_VERIFY_TOKEN: 'marketing-cap-verify' },
      silentLogger(),
    );
    sandbox = await startSandbox({
      templates: await loadTemplatesFile(SAMPLE_TEMPLATES),
      accessToken: TOKEN,
      messagesPerSecond: 0,
      phoneNumberIds: [NUMBER_A, NUMBER_B],
      webhooks: { url: `${service.url}/webhook`, appSecret: SECRET, sentAfterMs: 5, deliveredAfterMs: 20, readShare: 0, batchMs: 10 },
    });
    const opened = await openContext([], {
      ...env,
      WHATSAPP_API_URL: sandbox.url,
      WHATSAPP_ACCESS_TOKEN: TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: NUMBER_A,
      SEND_RATE: '0',
      REPORTS_DIR: join(dir.dir, 'reports'),
    });
    // The worker and `send` share a ledger whose clock the test moves (running: BullMQ's delays still pass).
    clock = TestClock.running();
    const ledger = new RedisLedger(opened.redis, prefix, { ...ledgerOptionsOf(opened.config, silentLogger()), clock });
    context = { config: opened.config, logger: silentLogger(), redis: opened.redis, ledger, close: () => opened.close() };
    worker = await startWorker(context);
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await service.close();
    await sandbox.close();
    await removePrefix(context.redis, prefix);
    await context.close();
    await dir.cleanup();
  });

  async function campaign(
    campaignId: string,
    phoneNumberId: string,
    phones: string[],
    template: 'spring_promo' | 'order_update' = 'spring_promo',
  ): Promise<string> {
    const file = join(dir.dir, `${campaignId}.csv`);
    const promo = template === 'spring_promo';
    await writeFile(
      file,
      [
        promo ? 'phone,name,discount,banner' : 'phone,first_name,order_id',
        ...phones.map((p) => (promo ? `${p},Ana,25%,https://example.com/a.jpg` : `${p},Ana,A-1`)),
      ].join('\n') + '\n',
    );
    const outcome = await runSend(context, {
      file,
      campaignId,
      phoneNumberId,
      template,
      language: 'en_US',
      phoneColumn: 'phone',
      params: promo ? ['name', 'discount'] : ['first_name', 'order_id'],
      ...(promo ? { headerMediaColumn: 'banner' } : {}),
      templatesFile: SAMPLE_TEMPLATES,
    });
    await waitFor(async () => (await context.ledger.status(outcome.id))?.state, {
      what: `campaign ${campaignId} completed`,
      until: (state) => state === 'completed',
      timeoutMs: 20_000,
    });
    return outcome.id;
  }

  async function rows(id: string): Promise<RowRecord[]> {
    const all: RowRecord[] = [];
    for await (const page of context.ledger.rows(id)) all.push(...page);
    return all;
  }

  const acceptedFrom = (number: string): { to: string; template: string | undefined }[] =>
    sandbox
      .accepted()
      .filter((m) => m.phoneNumberId === number)
      .map((m) => ({ to: m.to, template: (m.body as { template?: { name?: string } }).template?.name }));

  it('campaign 2 on B skips Ana within 24 h and sends the others; UTILITY still reaches her; after 24 h she is sent again', async () => {
    sandbox.setFaults({ recipientErrors: [{ waId: ANA.slice(1), code: 131049, times: 1 }] });
    const first = await campaign('first', NUMBER_A, [ANA, BRUNO]);
    // Accepted, then failed by Meta's status webhook, which `campaign serve` applies.
    const [anaFirst] = await waitFor(() => rows(first), {
      what: "Ana's first row failed with 131049",
      until: (r) => r[0]?.status === 'failed',
    });
    expect(anaFirst).toMatchObject({ phone: ANA, status: 'failed', errorCode: '131049' });
    // serve gives the cap to every number of the portfolio.
    await waitFor(() => context.ledger.marketingCaps(NUMBER_B), { what: "Ana's cap on number B", until: (caps) => caps.has(ANA) });

    const second = await campaign('second', NUMBER_B, [ANA, CARLA]);
    const [anaRow, carlaRow] = await rows(second);
    expect(anaRow).toMatchObject({ phone: ANA, status: 'skipped', errorCode: 'MARKETING_CAP_WAIT' });
    expect(anaRow?.errorDetail).toMatch(/Meta answered 131049 .*no MARKETING template goes to them before \d{4}-\d\d-\d\dT/);
    expect(carlaRow).toMatchObject({ phone: CARLA, status: 'sent' });
    expect(acceptedFrom(NUMBER_B)).toEqual([{ to: CARLA, template: 'spring_promo' }]);

    const utility = await campaign('utility', NUMBER_B, [ANA], 'order_update');
    expect((await rows(utility))[0]).toMatchObject({ phone: ANA, status: 'sent' });

    clock.advance(DAY + 60_000);
    const later = await campaign('later', NUMBER_B, [ANA]);
    expect((await rows(later))[0]).toMatchObject({ phone: ANA, status: 'sent' });
    expect(acceptedFrom(NUMBER_B)).toEqual([
      { to: CARLA, template: 'spring_promo' },
      { to: ANA, template: 'order_update' },
      { to: ANA, template: 'spring_promo' },
    ]);
  }, 60_000);
});
