import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { Redis } from 'ioredis';
import { afterEach, beforeEach } from 'vitest';
import { CloudApiClient } from '../../src/cloud-api/cloud-api-client.js';
import { Secret } from '../../src/config/secret.js';
import type { CampaignDefinition } from '../../src/campaigns/campaign.js';
import { produceCampaign, type ProduceSummary } from '../../src/campaigns/ingest/producer.js';
import { SendProcessor } from '../../src/campaigns/send/send-processor.js';
import { silentLogger } from '../../src/logging/logger.js';
import { RedisLedger, type AutoPauseSettings } from '../../src/redis/ledger/redis-ledger.js';
import { BullSendQueue } from '../../src/queue/send-queue.js';
import { RedisSendPacer } from '../../src/redis/pacer/redis-send-pacer.js';
import { numberScope } from '../../src/redis/key-scope.js';
import { startSendWorker, type RunningSendWorker } from '../../src/queue/send-worker.js';
import { loadTemplatesFile, startSandbox, type Sandbox, type SandboxOptions } from '../../src/sandbox/index.js';
import { planSend } from '../../src/campaigns/send-plan.js';
import { requirementsOf } from '../../src/templates/template-requirements.js';
import type { MessageTemplate } from '../../src/templates/template-schema.js';
import { tempDir } from './csv-files.js';
import { freshPrefix, removePrefix, testRedis } from './redis.js';
import type { TestClock } from './test-clock.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

export const SAMPLE_TEMPLATES = fileURLToPath(new URL('../../samples/templates.json', import.meta.url));
export const PHONE_NUMBER_ID = '106540352242922';
const TOKEN = 'test-token';
/** The access token the pipeline's client sends (and the sandbox accepts unless a test changes it). */
export const PIPELINE_ACCESS_TOKEN = TOKEN;

export interface PipelineOptions {
  label: string;
  rate?: number;
  concurrency?: number;
  attempts?: number;
  backoffMs?: number;
  timeoutMs?: number;
  sandbox?: Partial<Omit<SandboxOptions, 'templates' | 'accessToken'>>;
  /** The ledger's error-spike brake (default off, as before). */
  autoPause?: AutoPauseSettings;
  /** The duplicate-send guard's window (default off, as before). */
  duplicateWindowMs?: number;
  /** The feeder's window (default: feedWindowSize of the rate). */
  feedWindow?: number;
  /** CONFIRM_WINDOW_SECONDS in ms (default 0: in-doubt rows are unknown at once, timeouts retried). */
  confirmWindowMs?: number;
  /** A Redis of the test's own (default: the shared one, testRedis()). */
  redisUrl?: string;
  /** The ledger's clock, for tests that move time (default: Redis's). */
  clock?: TestClock;
}

/**
 * The whole send path in this process, against a real Redis (fresh prefix) and the real
 * sandbox on a free port. `completed(id)` resolves when the worker records the campaign's
 * last answer: tests wait on that event, not on sleeps.
 */
export class Pipeline {
  readonly prefix: string;
  readonly redis: Redis;
  readonly ledger: RedisLedger;
  sandbox!: Sandbox;
  /** The number's send queue (the worker's feeder fills it; tests read it). */
  queue!: BullSendQueue;
  worker: RunningSendWorker | undefined;
  #client!: CloudApiClient;
  #orderUpdate!: MessageTemplate;
  readonly #completions = new Map<string, { promise: Promise<void>; resolve: () => void }>();

  private constructor(readonly options: PipelineOptions) {
    this.prefix = freshPrefix(options.label);
    this.redis = options.redisUrl === undefined ? testRedis() : new Redis(options.redisUrl, { maxRetriesPerRequest: null });
    this.ledger = new RedisLedger(this.redis, this.prefix, {
      ...(options.autoPause === undefined ? {} : { autoPause: options.autoPause }),
      ...(options.duplicateWindowMs === undefined ? {} : { duplicateWindowMs: options.duplicateWindowMs }),
      ...(options.confirmWindowMs === undefined ? {} : { confirmWindowMs: options.confirmWindowMs }),
      ...(options.clock === undefined ? {} : { clock: options.clock }),
    });
  }

  static async start(options: PipelineOptions): Promise<Pipeline> {
    const p = new Pipeline(options);
    const templates = await loadTemplatesFile(SAMPLE_TEMPLATES);
    const orderUpdate = templates.find((t) => t.name === 'order_update' && t.language === 'en_US');
    if (orderUpdate === undefined) throw new Error('samples/templates.json lost order_update (en_US)');
    p.#orderUpdate = orderUpdate;
    p.sandbox = await startSandbox({ templates, accessToken: TOKEN, messagesPerSecond: 0, ...options.sandbox });
    p.#client = new CloudApiClient({
      baseUrl: p.sandbox.url,
      apiVersion: 'v25.0',
      accessToken: new Secret(TOKEN),
      timeoutMs: options.timeoutMs ?? 5000,
    });
    p.queue = new BullSendQueue({
      connection: p.redis,
      prefix: p.prefix,
      phoneNumberId: PHONE_NUMBER_ID,
      attempts: options.attempts ?? 6,
      backoffMs: options.backoffMs ?? 50,
      logger: silentLogger(),
    });
    return p;
  }

  startWorker(): void {
    const processor = new SendProcessor({
      ledger: this.ledger,
      sender: this.#client,
      logger: silentLogger(),
      onCampaignCompleted: (id) => this.#completion(id).resolve(),
      confirmInDoubt: (this.options.confirmWindowMs ?? 0) > 0,
      pacer:
        (this.options.rate ?? 0) > 0
          ? new RedisSendPacer(this.redis, {
              prefix: this.prefix,
              phoneNumberId: PHONE_NUMBER_ID,
              messagesPerSecond: this.options.rate ?? 0,
              auditKey: this.pacerAuditKey,
            })
          : undefined,
    });
    this.worker = startSendWorker({
      connection: this.redis,
      prefix: this.prefix,
      phoneNumberId: PHONE_NUMBER_ID,
      rate: this.options.rate ?? 0,
      concurrency: this.options.concurrency ?? 50,
      processor,
      ledger: this.ledger,
      logger: silentLogger(),
      attempts: this.options.attempts ?? 6,
      backoffMs: this.options.backoffMs ?? 50,
      ...(this.options.feedWindow === undefined ? {} : { feedWindow: this.options.feedWindow }),
      onCampaignCompleted: (id) => this.#completion(id).resolve(),
    });
  }

  /** Every admission of the worker's pacer, on Redis's clock (src/redis/pacer/redis-send-pacer.ts `auditKey`). */
  get pacerAuditKey(): string {
    // In the number's scope, as the pacer's own keys: its script stays in one slot.
    return `${numberScope(this.prefix, PHONE_NUMBER_ID)}:pacer-audit`;
  }

  completed(campaignId: string): Promise<void> {
    return this.#completion(campaignId).promise;
  }

  #completion(id: string): { promise: Promise<void>; resolve: () => void } {
    let entry = this.#completions.get(id);
    if (entry === undefined) {
      let resolve!: () => void;
      const promise = new Promise<void>((r) => (resolve = r));
      entry = { promise, resolve };
      this.#completions.set(id, entry);
    }
    return entry;
  }

  /** A campaign of the sample `order_update` (en_US) template filled from first_name, order_id. */
  definition(id: string, overrides: Partial<CampaignDefinition['plan']> = {}): CampaignDefinition {
    const plan = planSend(
      requirementsOf(this.#orderUpdate),
      ['phone', 'first_name', 'order_id'],
      { params: ['first_name', 'order_id'] },
      CLI_FIELD_NAMES,
    );
    return {
      id,
      createdAt: Date.now(),
      phoneNumberId: PHONE_NUMBER_ID,
      plan: { ...plan, ...overrides },
      source: { file: 'test.csv', phoneColumn: 'phone', fixWhitespace: false },
    };
  }

  produce(file: string, definition: CampaignDefinition): Promise<ProduceSummary> {
    return produceCampaign({ ledger: this.ledger }, { names: CLI_FIELD_NAMES, file, define: () => definition });
  }

  async report(campaignId: string) {
    const rows = [];
    for await (const page of this.ledger.rows(campaignId)) rows.push(...page);
    return rows;
  }

  async close(): Promise<void> {
    await this.worker?.close();
    await this.queue.close();
    await this.#client.close();
    await this.sandbox.close();
    await removePrefix(this.redis, this.prefix);
    await this.redis.quit();
  }
}

/**
 * The per-test frame every pipeline test needs, registered in the calling `describe`: a fresh
 * temp directory for CSVs, and the Pipeline the test started closed (its keys removed) after it.
 */
export function pipelinePerTest(): { start(options: PipelineOptions): Promise<Pipeline>; csvPath(name?: string): string } {
  let pipeline: Pipeline | undefined;
  let dir: Awaited<ReturnType<typeof tempDir>> | undefined;
  beforeEach(async () => {
    dir = await tempDir();
  });
  afterEach(async () => {
    await pipeline?.close();
    pipeline = undefined;
    await dir?.cleanup();
  });
  return {
    async start(options) {
      pipeline = await Pipeline.start(options);
      return pipeline;
    },
    csvPath(name = 'campaign.csv') {
      if (dir === undefined) throw new Error('csvPath() is for use inside a test');
      return join(dir.dir, name);
    },
  };
}
