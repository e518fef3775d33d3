import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { openContext, type AppContext } from '../../src/app/app-context.js';
import { ledgerOptionsOf } from '../../src/app/ledger-options.js';
import type { RowRecord } from '../../src/campaigns/campaign.js';
import { runSend } from '../../src/cli/run/send.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { loadTemplatesFile, startSandbox, type Sandbox, type StatusWebhookSettings } from '../../src/sandbox/index.js';
import { startService, type RunningService } from '../../workers/serve.js';
import { startWorker, type RunningWorker } from '../../workers/worker.js';
import { tempDir } from './csv-files.js';
import { SAMPLE_TEMPLATES } from './pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from './redis.js';
import type { TestClock } from './test-clock.js';
import { waitFor } from './waiting.js';

/** Two numbers of one business portfolio (`retail`): what a portfolio-wide rule is tried on. */
export const PORTFOLIO_NUMBERS = ['106540352242922', '106540352242923'] as const;

const TOKEN = 'portfolio-pipeline-token';
const SECRET = 'portfolio-pipeline-secret';

export interface PortfolioPipelineOptions {
  /** The queue prefix's stem (a fresh prefix is made from it). */
  name: string;
  /** How the sandbox's status webhooks look, beyond fast timings and no reads. */
  webhooks?: Partial<StatusWebhookSettings>;
  /** A clock for the ledger the worker and `send` share (BullMQ's own delays still pass in real time). */
  clock?: TestClock;
  /** Settings for `send` and the worker beyond the pipeline's own (FREQUENCY_CAPS). */
  env?: Record<string, string>;
}

/** A MARKETING template with an image header (`spring_promo`), or a UTILITY one (`order_update`). */
export type PipelineTemplate = 'spring_promo' | 'order_update';

/**
 * The real pipeline for two numbers of one portfolio: the sandbox (both numbers, signed status
 * webhooks), `campaign serve` (its intake and consumer) and a worker, on a fresh prefix;
 * `send()` runs `campaign send` and waits for the campaign to complete.
 */
export class PortfolioPipeline {
  private constructor(
    readonly prefix: string,
    readonly sandbox: Sandbox,
    readonly context: AppContext,
    private readonly parts: { dir: Awaited<ReturnType<typeof tempDir>>; service: RunningService; worker: RunningWorker },
  ) {}

  static async start(options: PortfolioPipelineOptions): Promise<PortfolioPipeline> {
    const dir = await tempDir();
    const prefix = freshPrefix(options.name);
    const env = {
      REDIS_URL: redisUrl(),
      QUEUE_PREFIX: prefix,
      LOG_LEVEL: 'silent',
      PORTFOLIOS: PORTFOLIO_NUMBERS.map((n) => `${n}:retail`).join(','),
    };
    const service = await startService(
      { port: 0, host: '127.0.0.1' },
      { ...env, WHATSAPP_APP_SECRET: SECRET, WEBHOOK_VERIFY_TOKEN: `${options.name}-verify` },
      silentLogger(),
    );
    const sandbox = await startSandbox({
      templates: await loadTemplatesFile(SAMPLE_TEMPLATES),
      accessToken: TOKEN,
      messagesPerSecond: 0,
      phoneNumberIds: PORTFOLIO_NUMBERS,
      webhooks: {
        url: `${service.url}/webhook`,
        appSecret: SECRET,
        sentAfterMs: 5,
        deliveredAfterMs: 20,
        readShare: 0,
        batchMs: 10,
        ...options.webhooks,
      },
    });
    const opened = await openContext([], {
      ...env,
      WHATSAPP_API_URL: sandbox.url,
      WHATSAPP_ACCESS_TOKEN: TOKEN,
      WHATSAPP_PHONE_NUMBER_ID: PORTFOLIO_NUMBERS[0],
      SEND_RATE: '0',
      REPORTS_DIR: join(dir.dir, 'reports'),
      ...options.env,
    });
    const { clock } = options;
    const context: AppContext =
      clock === undefined
        ? opened
        : {
            ...opened,
            ledger: new RedisLedger(opened.redis, prefix, { ...ledgerOptionsOf(opened.config, silentLogger()), clock }),
            close: () => opened.close(),
          };
    const worker = await startWorker(context);
    return new PortfolioPipeline(prefix, sandbox, context, { dir, service, worker });
  }

  /** `campaign send` of `phones` from `phoneNumberId` with `template`, waited for until completed; its ID. */
  async send(
    campaignId: string,
    phoneNumberId: string,
    phones: readonly string[],
    template: PipelineTemplate = 'spring_promo',
    flags: Partial<Parameters<typeof runSend>[1]> = {},
  ): Promise<string> {
    const outcome = await this.run(campaignId, phoneNumberId, phones, template, flags);
    await waitFor(async () => (await this.context.ledger.status(outcome.id))?.state, {
      what: `campaign ${campaignId} completed`,
      until: (state) => state === 'completed',
      timeoutMs: 20_000,
    });
    return outcome.id;
  }

  /** `campaign send` of `phones` (a file written for them) from `phoneNumberId` with `template`: its summary, not waited for. */
  async run(
    campaignId: string,
    phoneNumberId: string,
    phones: readonly string[],
    template: PipelineTemplate = 'spring_promo',
    flags: Partial<Parameters<typeof runSend>[1]> = {},
  ): ReturnType<typeof runSend> {
    const file = join(this.parts.dir.dir, `${campaignId}.csv`);
    const promo = template === 'spring_promo';
    const header = promo ? 'phone,name,discount,banner' : 'phone,first_name,order_id';
    const line = (p: string) => (promo ? `${p},Ana,25%,https://example.com/a.jpg` : `${p},Ana,A-1`);
    await writeFile(file, [header, ...phones.map(line)].join('\n') + '\n');
    return runSend(this.context, {
      // An audience is its own list of recipients: no file then.
      file: flags.audience === undefined ? file : undefined,
      campaign: campaignId,
      phoneNumberId,
      template,
      language: 'en_US',
      phoneColumn: 'phone',
      params: promo ? ['name', 'discount'] : ['first_name', 'order_id'],
      ...(promo ? { headerImageColumn: 'banner', mediaBy: 'link' } : {}),
      templatesFile: SAMPLE_TEMPLATES,
      ...flags,
    });
  }

  /** `campaign send --dry-run` of the same file `send` would write: its summary. */
  dryRun(campaignId: string, phoneNumberId: string, phones: readonly string[], template: PipelineTemplate = 'spring_promo') {
    return this.run(campaignId, phoneNumberId, phones, template, { dryRun: true });
  }

  async rows(campaignId: string): Promise<RowRecord[]> {
    const all: RowRecord[] = [];
    for await (const page of this.context.ledger.rows(campaignId)) all.push(...page);
    return all;
  }

  /** A file of this run's own directory (removed on close). */
  file(name: string): string {
    return join(this.parts.dir.dir, name);
  }

  async close(): Promise<void> {
    await this.parts.worker.close();
    await this.parts.service.close();
    await this.sandbox.close();
    await removePrefix(this.context.redis, this.prefix);
    await this.context.close();
    await this.parts.dir.cleanup();
  }
}
