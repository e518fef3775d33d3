import { Queue } from 'bullmq';
import { ZodError } from 'zod';
import type { ReportLedger } from '../campaigns/ledger.js';
import type { CampaignCountersReader } from '../campaigns/report/campaign-counters.js';
import type { SendWindow } from '../campaigns/feed/send-window.js';
import type { RedisClient } from '../redis/key-scope.js';
import { readLoginRefusals } from '../redis/access/redis-login-attempts.js';
import { RedisMetricsStore } from '../redis/metrics/redis-metrics-store.js';
import { readWebhookIntake, type WebhookIntakeFigures } from '../redis/webhooks/webhook-metrics.js';
import { campaignFigures, needsWindow, type CampaignFigures, type EtaContext } from './campaign-figures.js';
import type { MetricsTotals, MetricsTotalsReader } from './metrics-totals.js';
import { openSendQueue } from '../queue/open-send-queue.js';

export const QUEUE_STATES = ['waiting', 'active', 'delayed', 'failed'] as const;
export type QueueState = (typeof QUEUE_STATES)[number];

/** Everything one scrape shows, read from Redis at that moment. */
export interface MetricsSnapshot extends MetricsTotals {
  campaigns: { id: string; phoneNumberId: string; figures: CampaignFigures }[];
  /** By phone number: its BullMQ queue's jobs, and its requests per second over the last 10 s. */
  numbers: { phoneNumberId: string; jobs: Record<QueueState, number>; rate: number }[];
  /** The webhook inbox: entries held now, replays dropped and bodies refused when full (totals of every `serve`). */
  webhookIntake: WebhookIntakeFigures;
  /** The dashboard's login refusals by reason (totals of every `serve`: src/dashboard/login-throttle.ts). */
  loginRefusals: [reason: string, total: number][];
}

export interface ScrapeReaderOptions {
  redis: RedisClient;
  prefix: string;
  retentionMs: number;
  now?: () => number;
  /** The number's configured rate (sendRateOf: SEND_RATES, else SEND_RATE), for the ETA. */
  sendRate: (phoneNumberId: string) => number;
  /** Every campaign's counters; a windowed campaign's window and lanes' backlogs, for its ETA. */
  ledger: Pick<ReportLedger, 'getCampaign' | 'laneBacklogs'> & CampaignCountersReader;
  /** Where the processes' counts are kept (default: in Redis, under the prefix). */
  totals?: MetricsTotalsReader;
}

/**
 * How long a windowed campaign's ETA is reused (as the instant it ends): scrapes and the
 * campaigns page's polls come every few seconds, and the plan walks its lanes minute by minute.
 */
const WINDOWED_ETA_REUSE_MS = 5000;

/**
 * Reads a MetricsSnapshot in a few round trips (plus BullMQ's job counts, one per number, in
 * parallel): every campaign's counters (the ledger's) beside the metrics' totals; the numbers'
 * queues and rates. Rows are never read; lane backlogs (one length per lane) only for
 * campaigns with a send window that may still send, reused for a few seconds: a scrape takes
 * the same time at 1M queued rows as at 10.
 */
export class ScrapeReader {
  readonly #redis: RedisClient;
  readonly #prefix: string;
  readonly #totals: MetricsTotalsReader;
  readonly #retentionMs: number;
  readonly #now: () => number;
  readonly #queues = new Map<string, Queue>();
  readonly #sendRate: (phoneNumberId: string) => number;
  readonly #ledger: ScrapeReaderOptions['ledger'];
  /** A campaign's window never changes: read once from its definition (null: none could be read). */
  readonly #windows = new Map<string, SendWindow | null>();
  /** A windowed campaign's last ETA: when it was computed and the instant it ends (undefined: it could not be said). */
  readonly #windowedEtas = new Map<string, { at: number; endsAt: number | undefined }>();

  constructor(options: ScrapeReaderOptions) {
    this.#redis = options.redis;
    this.#prefix = options.prefix;
    this.#totals = options.totals ?? new RedisMetricsStore(options.redis, options.prefix);
    this.#retentionMs = options.retentionMs;
    this.#now = options.now ?? Date.now;
    this.#sendRate = options.sendRate;
    this.#ledger = options.ledger;
  }

  async read(): Promise<MetricsSnapshot> {
    const [counters, totals, webhookIntake, loginRefusals] = await Promise.all([
      this.#ledger.campaignCounters(),
      this.#totals.totals(),
      readWebhookIntake(this.#redis, this.#prefix),
      readLoginRefusals(this.#redis, this.#prefix),
    ]);
    const campaigns = await this.#campaigns(counters);
    const numbers = [...new Set(campaigns.map((c) => c.phoneNumberId))].sort();
    return { campaigns, numbers: await this.#numbersFigures(numbers), ...totals, webhookIntake, loginRefusals };
  }

  /** Closes the BullMQ queues it opened (not the connection: the caller's). */
  async close(): Promise<void> {
    const queues = [...this.#queues.values()];
    this.#queues.clear();
    await Promise.all(queues.map((q) => q.close().catch(() => undefined)));
  }

  async #campaigns(counters: Awaited<ReturnType<CampaignCountersReader['campaignCounters']>>): Promise<MetricsSnapshot['campaigns']> {
    const now = this.#now();
    const windowedIds = new Set(counters.filter(needsWindow).map((c) => c.status.id));
    // Those of campaigns that no longer send are not needed again.
    for (const id of this.#windowedEtas.keys()) if (!windowedIds.has(id)) this.#windowedEtas.delete(id);
    const fresh = (id: string) => {
      const reused = this.#windowedEtas.get(id);
      return reused !== undefined && now >= reused.at && now - reused.at < WINDOWED_ETA_REUSE_MS ? reused : undefined;
    };
    const windowed = new Map(
      await Promise.all(
        [...windowedIds].filter((id) => fresh(id) === undefined).map(async (id) => [id, await this.#windowed(id)] as const),
      ),
    );
    const campaigns: MetricsSnapshot['campaigns'] = [];
    for (const c of counters) {
      const { phoneNumberId } = c;
      const { id } = c.status;
      const context: EtaContext = { configuredRate: this.#sendRate(phoneNumberId), windowed: windowed.get(id) };
      const figures = campaignFigures(c, now, this.#retentionMs, context);
      if (figures === undefined) continue;
      const reused = fresh(id);
      if (reused !== undefined) {
        figures.etaSeconds = reused.endsAt === undefined ? undefined : Math.max(0, Math.ceil((reused.endsAt - now) / 1000));
      } else if (windowed.has(id)) {
        this.#windowedEtas.set(id, { at: now, endsAt: figures.etaSeconds === undefined ? undefined : now + figures.etaSeconds * 1000 });
      }
      campaigns.push({ id, phoneNumberId, figures });
    }
    return campaigns;
  }

  /** A windowed campaign's window (read once from its definition) and its lanes' backlogs now. */
  async #windowed(id: string): Promise<EtaContext['windowed']> {
    let window = this.#windows.get(id);
    if (window === undefined) {
      const definition = await this.#ledger.getCampaign(id).catch((error: unknown) => {
        // A definition the schema refuses (another version's) gets no ETA; Redis away fails the scrape.
        if (error instanceof ZodError || error instanceof SyntaxError) return undefined;
        throw error;
      });
      window = definition?.window ?? null;
      this.#windows.set(id, window);
    }
    if (window === null) return undefined;
    return { window, backlogs: await this.#ledger.laneBacklogs(id) };
  }

  async #numbersFigures(numbers: readonly string[]): Promise<MetricsSnapshot['numbers']> {
    const [rates, jobs] = await Promise.all([
      this.#totals.rates(numbers, this.#now()),
      Promise.all(numbers.map((n) => this.#jobCounts(n))),
    ]);
    return numbers.map((phoneNumberId, i) => ({ phoneNumberId, jobs: jobs[i] ?? zeroJobs(), rate: rates[i] ?? 0 }));
  }

  /** BullMQ's counts for the number's send queue (src/queue/queue-names.ts). */
  async #jobCounts(phoneNumberId: string): Promise<Record<QueueState, number>> {
    let queue = this.#queues.get(phoneNumberId);
    if (queue === undefined) {
      queue = openSendQueue(phoneNumberId, this.#redis, this.#prefix);
      // A failed count fails the scrape; the queue's own errors say nothing more.
      queue.on('error', () => undefined);
      this.#queues.set(phoneNumberId, queue);
    }
    try {
      // `prioritized` jobs wait too (BullMQ keeps them apart from `wait`).
      const counts = await queue.getJobCounts('waiting', 'prioritized', 'active', 'delayed', 'failed');
      return {
        waiting: (counts.waiting ?? 0) + (counts.prioritized ?? 0),
        active: counts.active ?? 0,
        delayed: counts.delayed ?? 0,
        failed: counts.failed ?? 0,
      };
    } catch (error) {
      // A queue made while Redis was away stays broken (BullMQ initialises it once): the next scrape makes a new one.
      this.#queues.delete(phoneNumberId);
      void queue.close().catch(() => undefined);
      throw error;
    }
  }
}

function zeroJobs(): Record<QueueState, number> {
  return { waiting: 0, active: 0, delayed: 0, failed: 0 };
}
