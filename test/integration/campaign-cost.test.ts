import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import { readCosts } from '../../src/app/costs.js';
import { runSend, type SendOptions } from '../../src/cli/run/send.js';
import { AppError } from '../../src/errors/app-error.js';
import { silentLogger } from '../../src/logging/logger.js';
import { loadRateCard } from '../../src/pricing/rate-card.js';
import { campaignCost } from '../../src/pricing/recorded-cost.js';
import { RedisMetricsStore } from '../../src/redis/metrics/redis-metrics-store.js';
import { loadTemplatesFile, startSandbox, type Sandbox } from '../../src/sandbox/index.js';
import { SANDBOX_WABA_ID } from '../../src/sandbox/webhook-payloads.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { startWorker, type RunningWorker } from '../../workers/worker.js';
import { tempDir } from '../support/csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from '../support/pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from '../support/redis.js';
import { waitFor } from '../support/waiting.js';

const TOKEN = 'cost-token';
const SECRET = 'cost-secret';

/** spring_promo is MARKETING: two numbers in the United Kingdom, three in India, one in Brazil. */
const PROMO_ROWS = [
  'phone,name,discount,banner',
  '+447400123456,Ana,25%,https://example.com/a.jpg',
  '+447400123457,Ben,25%,https://example.com/b.jpg',
  '+919876543210,Chitra,25%,https://example.com/c.jpg',
  '+919876543211,Dev,25%,https://example.com/d.jpg',
  '+919876543212,Esha,25%,https://example.com/e.jpg',
  '+5511987654321,Fabio,25%,https://example.com/f.jpg',
];

/**
 * What a campaign costs, through the real producer, worker, sandbox, signed webhooks and
 * `campaign serve`: the plan's estimate by market (the shipped example card) is what the
 * statuses' `pricing` come to once every message is delivered, in `status`'s cost, in the
 * report's rows, in cw_billable_messages_total, and in what the sandbox's pricing_analytics
 * says was charged. `--max-cost` below the estimate refuses the campaign before any row is queued.
 */
describe('what a campaign costs, end to end', () => {
  let prefix: string;
  let dir: Awaited<ReturnType<typeof tempDir>>;
  let service: RunningService;
  let sandbox: Sandbox;
  let context: AppContext;
  let worker: RunningWorker | undefined;

  beforeEach(async () => {
    prefix = freshPrefix('cost');
    dir = await tempDir();
    const env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent' };
    service = await startService(
      { port: 0, host: '127.0.0.1' },
      { ...env, WHATSAPP_APP_SECRET: SECRET, WEBHOOK_VERIFY_TOKEN: 'cost-verify' },
      silentLogger(),
    );
    sandbox = await startSandbox({
      templates: await loadTemplatesFile(SAMPLE_TEMPLATES),
      accessToken: TOKEN,
      messagesPerSecond: 0,
      webhooks: { url: `${service.url}/webhook`, appSecret: SECRET, sentAfterMs: 5, deliveredAfterMs: 20, readShare: 0, batchMs: 10 },
    });
    context = await openContext([], {
      ...env,
      WHATSAPP_API_URL: sandbox.url,
      WHATSAPP_ACCESS_TOKEN: TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      WHATSAPP_BUSINESS_ACCOUNT_ID: SANDBOX_WABA_ID,
      TEMPLATES_FILE: SAMPLE_TEMPLATES,
      SEND_RATE: '0',
      REPORTS_DIR: join(dir.dir, 'reports'),
    });
  });

  afterEach(async () => {
    await worker?.close();
    worker = undefined;
    await removePrefix(context.redis, prefix);
    await context.close();
    await sandbox.close();
    await service.close();
    await dir.cleanup();
  });

  async function promoFile(): Promise<string> {
    const file = join(dir.dir, 'promo.csv');
    await writeFile(file, PROMO_ROWS.join('\n') + '\n');
    return file;
  }

  const options = (file: string, extra: Partial<SendOptions> = {}): SendOptions => ({
    file,
    template: 'spring_promo',
    language: 'en_US',
    phoneColumn: 'phone',
    params: ['name', 'discount'],
    headerImageColumn: 'banner',
    // The banner's link is an example one: sent as the link, as Meta would fetch it.
    mediaBy: 'link',
    ...extra,
  });

  it('the estimate and the recorded pricing agree for a campaign of known markets', async () => {
    const file = await promoFile();
    const dry = await runSend(context, options(file, { dryRun: true }));
    const sent = await runSend(context, options(file, { campaign: 'c-cost' }));
    expect(sent).toMatchObject({ rows: 6, queued: 6 });
    expect(dry.cost).toEqual(sent.cost);
    const card = loadRateCard(undefined);
    const rate = (market: string) => card.entries.find((e) => e.market === market && e.category === 'marketing')?.rate ?? NaN;
    expect(sent.cost?.byMarket).toEqual([
      { market: 'Brazil', category: 'marketing', messages: 1, rate: rate('Brazil'), amount: rate('Brazil') },
      { market: 'India', category: 'marketing', messages: 3, rate: rate('India'), amount: Math.round(3 * rate('India') * 1e6) / 1e6 },
      {
        market: 'United Kingdom',
        category: 'marketing',
        messages: 2,
        rate: rate('United Kingdom'),
        amount: Math.round(2 * rate('United Kingdom') * 1e6) / 1e6,
      },
    ]);

    worker = await startWorker(context);
    const recorded = await waitFor(async () => context.ledger.recordedCosts('c-cost'), {
      until: (r) => r.billed.reduce((n, b) => n + b.messages, 0) === 6,
      timeoutMs: 20_000,
      what: 'every row billed by its status webhooks',
    });
    // Once per message: one billable row per market and category of the plan, no more.
    expect(recorded.billed.sort((a, b) => a.market.localeCompare(b.market))).toEqual(
      sent.cost?.byMarket.map((m) => ({ market: m.market, category: 'marketing', messages: m.messages })),
    );
    const status = await context.ledger.status('c-cost');
    const cost = campaignCost(card, recorded, status?.startedAt ?? Date.now());
    expect(cost).toEqual({ currency: 'USD', estimated: sent.cost?.total, billable: 6, amount: sent.cost?.total });

    const rows = [];
    for await (const page of context.ledger.rows('c-cost')) rows.push(...page);
    expect(rows.map((r) => r.pricing)).toEqual(Array.from({ length: 6 }, () => ({ category: 'marketing', billable: true })));

    // The billable tallies reach Redis with the next metrics flush, which may come after the rows are billed.
    const billable = await waitFor(async () => (await new RedisMetricsStore(context.redis, prefix).totals()).billable, {
      until: (b) => b.reduce((n, entry) => n + Number(entry[3]), 0) === 6,
      timeoutMs: 20_000,
      what: 'the billable tallies of every row flushed to Redis',
    });
    expect(billable.sort((a, b) => a[2].localeCompare(b[2]))).toEqual([
      [PHONE_NUMBER_ID, 'marketing', 'Brazil', 1],
      [PHONE_NUMBER_ID, 'marketing', 'India', 3],
      [PHONE_NUMBER_ID, 'marketing', 'United Kingdom', 2],
    ]);

    // What Meta charged (the sandbox prices its deliveries with the same example card) beside the ledger.
    const costs = await readCosts(context, {});
    expect(costs.charged).toEqual({
      messages: 6,
      amount: sent.cost?.total,
      byCategory: [{ category: 'marketing', messages: 6, amount: sent.cost?.total }],
    });
    expect(costs.estimated).toEqual({
      messages: 6,
      amount: sent.cost?.total,
      byCategory: [{ category: 'marketing', messages: 6, amount: sent.cost?.total }],
      missing: [],
    });
  }, 60_000);

  it('--max-cost below the estimate refuses the campaign before any row is queued; a dry run says it would', async () => {
    const file = await promoFile();
    const dry = await runSend(context, options(file, { dryRun: true, maxCost: 0.05 }));
    expect(dry.maxCost?.amount).toBe(0.05);
    expect(dry.maxCost?.refused).toMatch(/^the estimated cost, [\d.]+ USD, is above --max-cost 0.05 USD$/);
    let refusal: unknown;
    try {
      await runSend(context, options(file, { campaign: 'c-over', maxCost: 0.05 }));
    } catch (error) {
      refusal = error;
    }
    expect(refusal).toBeInstanceOf(AppError);
    expect((refusal as AppError).code).toBe('COST_ABOVE_MAX');
    expect((refusal as AppError).message).toMatch(/is above --max-cost 0.05 USD. Nothing was queued.$/);
    expect(await context.ledger.getCampaign('c-over')).toBeUndefined();

    const within = await runSend(context, options(file, { campaign: 'c-within', maxCost: 100 }));
    expect(within).toMatchObject({ queued: 6, maxCost: { amount: 100, refused: null } });
  }, 30_000);
});
