import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { Redis } from 'ioredis';
import {
  loadTemplatesFile,
  startSandbox,
  type AcceptedMessage,
  type FaultSettings,
  type MessagingLimitTier,
  type Sandbox,
  type SandboxStats,
} from '../../src/sandbox/index.js';
import { CliProcess, runCli, type CliResult } from './cli-process.js';
import { byWaId, crossCheck, parseReport, type ReportRow, type SendSummary, type StatusJson } from './fault-report.js';
import { waitFor, within } from './waiting.js';
import { phoneNumber, tempDir, writeCampaignCsv } from './csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from './pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from './redis.js';
import { silentLogger } from '../../src/logging/logger.js';
import { startService, type RunningService } from '../../workers/serve.js';
import type { RedisClient } from '../../src/redis/key-scope.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { createCluster } from '../../src/redis/redis-connection.js';
import type { RedisClusterUnderTest } from './redis-cluster.js';

export type { ReportRow, SendSummary, StatusJson } from './fault-report.js';
export { outputAfter } from './fault-waiting.js';
export { waitFor, within } from './waiting.js';

export interface HarnessOptions {
  label: string;
  rows: number;
  /** SEND_RATE of the worker (and `send`). */
  sendRate: number;
  /** The sandbox's per-number throughput; 0 = unlimited. */
  sandboxMps: number;
  /** The token the sandbox accepts and the worker uses (default `fault-token`). */
  token?: string;
  /** Other worker settings: SEND_ATTEMPTS, SEND_TIMEOUT_MS, … */
  workerEnv?: Record<string, string>;
  /** Redis for everything (default: the suite's shared one). */
  redisUrl?: string;
  /**
   * Run the webhook service (`campaign serve`, in this process) and have the sandbox post its
   * status webhooks to it. Without it no status ever arrives, so the workers run with
   * CONFIRM_WINDOW_SECONDS=0 (the rule without webhooks) unless workerEnv says otherwise.
   */
  webhooks?: boolean;
  /** A Redis Cluster of the test's own instead of one Redis (REDIS_CLUSTER_NODES for every process). */
  cluster?: RedisClusterUnderTest;
  /** QUEUE_PREFIX (default: a fresh one named after `label`). */
  prefix?: string;
  /** The phone numbers the sandbox knows (default: PHONE_NUMBER_ID only). */
  phoneNumberIds?: readonly string[];
  /** What the sandbox reports as the numbers' messaging limit (default TIER_UNLIMITED). */
  messagingLimitTier?: MessagingLimitTier;
}

const HARNESS_APP_SECRET = 'fault-app-secret';

/** How long `startWorker` waits for `send worker started`. */
const WORKER_START_MS = 120_000;

/** The digits Meta calls the wa_id of the n-th CSV row's phone. */
export function waIdOfRow(n: number): string {
  return phoneNumber(n).replace(/\D/g, '');
}

/**
 * The fault-injection suite's rig: the real sandbox in the test process
 * (so the test sees every accepted message the moment it happens), a fresh QUEUE_PREFIX,
 * a CSV of `rows` valid rows, and the product driven only as an operator would: `campaign
 * worker` child processes that the test can SIGKILL, `campaign send/status/report/...`
 * through the CLI. Everything it starts it stops by PID in `close()`.
 */
export class FaultHarness {
  readonly #env: Record<string, string>;
  readonly prefix: string;
  readonly csvFile: string;
  readonly workers: CliProcess[] = [];
  readonly #cleanupDir: () => Promise<void>;
  /** Called with every chunk any worker prints (workers started later included). */
  readonly #outputListeners = new Set<() => void>();

  private constructor(
    readonly options: HarnessOptions,
    readonly sandbox: Sandbox,
    readonly dir: string,
    cleanupDir: () => Promise<void>,
    prefix: string,
    readonly service: RunningService | undefined,
  ) {
    this.prefix = prefix;
    this.csvFile = join(dir, `${options.label}.csv`);
    this.#cleanupDir = cleanupDir;
    this.#env = {
      REDIS_URL: options.redisUrl ?? redisUrl(),
      QUEUE_PREFIX: this.prefix,
      WHATSAPP_API_URL: sandbox.url,
      WHATSAPP_ACCESS_TOKEN: options.token ?? 'fault-token',
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      SEND_RATE: String(options.sendRate),
      LOG_LEVEL: 'info',
      REPORTS_DIR: join(dir, 'reports'),
      ...(options.webhooks === true ? {} : { CONFIRM_WINDOW_SECONDS: '0' }),
      ...options.workerEnv,
    };
  }

  /**
   * The environment of every process the rig starts. A cluster's nodes are read at each start:
   * a node the test killed is not given to processes started after (RedisClusterUnderTest.nodesSetting).
   */
  get env(): Record<string, string> {
    const cluster = this.options.cluster;
    return cluster === undefined ? this.#env : { ...this.#env, ...cluster.env(), ...this.options.workerEnv };
  }

  static async start(options: HarnessOptions): Promise<FaultHarness> {
    const dir = await tempDir();
    const templates = await loadTemplatesFile(SAMPLE_TEMPLATES);
    const prefix = options.prefix ?? freshPrefix(options.label);
    const service =
      options.webhooks === true
        ? await startService(
            { port: 0, host: '127.0.0.1' },
            {
              REDIS_URL: options.redisUrl ?? redisUrl(),
              ...(options.cluster === undefined ? {} : options.cluster.env()),
              QUEUE_PREFIX: prefix,
              LOG_LEVEL: 'warn',
              WHATSAPP_APP_SECRET: HARNESS_APP_SECRET,
              WEBHOOK_VERIFY_TOKEN: 'fault-verify-token',
              ...options.workerEnv,
            },
            silentLogger(),
          )
        : undefined;
    const sandbox = await startSandbox({
      templates,
      accessToken: options.token ?? 'fault-token',
      messagesPerSecond: options.sandboxMps,
      ...(options.phoneNumberIds === undefined ? {} : { phoneNumberIds: options.phoneNumberIds }),
      ...(options.messagingLimitTier === undefined ? {} : { messagingLimitTier: options.messagingLimitTier }),
      ...(service === undefined ? {} : { webhooks: { url: `${service.url}/webhook`, appSecret: HARNESS_APP_SECRET } }),
    });
    const harness = new FaultHarness(options, sandbox, dir.dir, dir.cleanup, prefix, service);
    await writeCampaignCsv(harness.csvFile, options.rows);
    return harness;
  }

  setFaults(faults: FaultSettings): void {
    this.sandbox.setFaults(faults);
  }

  stats(): SandboxStats {
    return this.sandbox.stats();
  }

  /** Starts `campaign worker [args]` and resolves once it logged `send worker started`. */
  async startWorker(extraEnv: Record<string, string> = {}, args: readonly string[] = []): Promise<CliProcess> {
    const worker = new CliProcess(['worker', ...args], { ...this.env, ...extraEnv });
    this.workers.push(worker);
    const notify = () => this.#outputListeners.forEach((listener) => listener());
    worker.child.stdout?.on('data', notify);
    worker.child.stderr?.on('data', notify);
    // Catches a worker that never starts, not a slow one: a node + tsx start-up takes about a
    // second alone, and tens of seconds on a 2-core machine running two suites and more.
    await within(
      WORKER_START_MS,
      worker.waitFor(/send worker started/),
      () => `worker ${worker.child.pid ?? '?'} output:\n${worker.output}`,
    );
    return worker;
  }

  /** `campaign ARGS` with this rig's environment; throws (with stderr) unless it exits 0. */
  async cli(args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
    const result = await runCli(args, { ...this.env, ...extraEnv });
    if (result.code !== 0) throw new Error(`campaign ${args.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`);
    return result;
  }

  /** `campaign send` of the rig's CSV (sample `order_update` template) with `--json`. */
  async send(extraEnv: Record<string, string> = {}): Promise<SendSummary> {
    const result = await this.cli(
      [
        'send',
        this.csvFile,
        '--template',
        'order_update',
        '--language',
        'en_US',
        '--params',
        'first_name,order_id',
        '--templates',
        SAMPLE_TEMPLATES,
        '--json',
      ],
      extraEnv,
    );
    return JSON.parse(result.stdout) as SendSummary;
  }

  async status(id: string): Promise<StatusJson> {
    return JSON.parse((await this.cli(['status', id, '--json'])).stdout) as StatusJson;
  }

  async report(id: string): Promise<ReportRow[]> {
    const out = join(this.dir, `${id}.report.csv`);
    await this.cli(['report', id, '--out', out]);
    return parseReport(await readFile(out, 'utf8'));
  }

  accepted(): readonly AcceptedMessage[] {
    return this.sandbox.accepted();
  }

  /** Resolves when the sandbox has accepted at least `count` messages in all (an event, not a poll). */
  waitForAccepted(count: number, ms: number): Promise<void> {
    if (this.accepted().length >= count) return Promise.resolve();
    let unsubscribe: () => void = () => undefined;
    const reached = new Promise<void>((resolve) => {
      unsubscribe = this.sandbox.onAccepted(() => {
        if (this.accepted().length >= count) resolve();
      });
    });
    return within(ms, reached, () => `sandbox accepted ${this.accepted().length} of ${count}; ${this.describeWorkers()}`).finally(
      unsubscribe,
    );
  }

  /**
   * Resolves when a worker logs that it recorded the campaign's last answer. As a fallback
   * (a row answered by BullMQ's own give-up path completes the campaign without that log
   * line) the ledger is read every second. Returns the final status.
   */
  async waitForCompletion(id: string, ms: number): Promise<StatusJson> {
    const pattern = new RegExp(`"campaignId":"${id}"[^\\n]*"msg":"campaign completed"`);
    let done = false;
    const logged = new Promise<void>((resolve) => {
      const check = () => {
        if (this.workers.some((w) => pattern.test(w.output))) {
          this.#outputListeners.delete(check);
          resolve();
        }
      };
      this.#outputListeners.add(check);
      check();
    });
    // Read in this process, not through `campaign status`: a CLI process every second would
    // load the machine the workers run on. A read that fails (Redis down in a fault test) is a "not yet".
    const state = () => this.inRedis(async (redis) => (await new RedisLedger(redis, this.prefix).status(id))?.state).catch(() => undefined);
    const polled = waitFor(() => (done ? 'stopped' : state()), {
      what: `campaign ${id} completed`,
      timeoutMs: ms + 1000,
      intervalMs: 1000,
      until: (seen) => seen === 'completed' || seen === 'stopped',
    });
    // Only `within` below reports a timeout (its deadline comes first), with the whole picture.
    polled.catch(() => undefined);
    try {
      await within(ms, Promise.race([logged, polled]), async () => {
        const last = await this.status(id).catch(() => undefined);
        return (
          `campaign ${id} not completed; status ${JSON.stringify(last)}; sandbox accepted ` +
          `${this.accepted().length}; ${this.describeWorkers()}`
        );
      });
    } finally {
      done = true;
      this.#outputListeners.clear();
    }
    return this.status(id);
  }

  /** Polls `check` every `everyMs` until it holds (a last resort, for states nothing announces). */
  pollUntil<T>(what: string, ms: number, everyMs: number, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
    return waitFor(check, {
      what,
      timeoutMs: ms,
      intervalMs: everyMs,
      explain: () => `sandbox accepted ${this.accepted().length}; ${this.describeWorkers()}`,
    });
  }

  /** Accepted messages per recipient (wa_id digits). */
  acceptedByWaId(): Map<string, AcceptedMessage[]> {
    return byWaId(this.accepted());
  }

  /** Accepted sends beyond the first per recipient (every CSV row has its own phone). */
  duplicatesSeen(): number {
    return this.accepted().length - this.acceptedByWaId().size;
  }

  /** With FAULT_VERBOSE=1, prints what a scenario ended with (for reports on the product). */
  note(label: string, data: unknown): void {
    if (process.env.FAULT_VERBOSE === '1') console.info(`[${this.options.label}] ${label}: ${JSON.stringify(data)}`);
  }

  describeWorkers(): string {
    return this.workers
      .map((w) => {
        const state =
          w.child.exitCode !== null || w.child.signalCode !== null ? `exited ${w.child.exitCode ?? w.child.signalCode}` : 'running';
        const tail = w.output
          .split('\n')
          .filter((l) => l !== '')
          .slice(-5)
          .join('\n    ');
        return `worker ${w.child.pid ?? '?'} (${state}), last lines:\n    ${tail}`;
      })
      .join('\n');
  }

  /** What the report says against what the sandbox accepted (see crossCheck); empty = consistent. */
  crossCheck(report: readonly ReportRow[]): string[] {
    return crossCheck(report, this.accepted());
  }

  /** Runs `fn` on a short-lived connection to the harness's Redis (to read what no CLI command shows). */
  async inRedis<T>(fn: (redis: RedisClient) => Promise<T>): Promise<T> {
    const redis = this.#connect();
    redis.on('error', () => undefined);
    try {
      return await fn(redis);
    } finally {
      redis.disconnect();
    }
  }

  #connect(): RedisClient {
    const cluster = this.options.cluster;
    if (cluster !== undefined) return createCluster(cluster.env().REDIS_URL ?? '', cluster.seeds, { maxRetriesPerRequest: 1 });
    return new Redis(this.env.REDIS_URL ?? redisUrl(), { maxRetriesPerRequest: 1, connectTimeout: 2000 });
  }

  /** Kills every worker still running (by PID), closes the sandbox, removes the prefix and temp files. */
  async close(options: { removeKeys?: boolean } = {}): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop('SIGKILL')));
    await this.sandbox.close();
    await this.service?.close();
    if (options.removeKeys !== false) {
      const redis = this.#connect();
      redis.on('error', () => undefined);
      try {
        await removePrefix(redis, this.prefix);
      } finally {
        redis.disconnect();
      }
    }
    await this.#cleanupDir();
  }
}
