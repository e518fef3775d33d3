import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { parse } from 'csv-parse/sync';
import { Redis } from 'ioredis';
import {
  loadTemplatesFile,
  startSandbox,
  type AcceptedMessage,
  type FaultSettings,
  type Sandbox,
  type SandboxStats,
} from '../../src/sandbox/index.js';
import { CliProcess, runCli, type CliResult } from './cli-process.js';
import { phoneNumber, tempDir, writeCampaignCsv } from './csv-files.js';
import { PHONE_NUMBER_ID, SAMPLE_TEMPLATES } from './pipeline.js';
import { freshPrefix, redisUrl, removePrefix } from './redis.js';

/**
 * The fault-injection suite's rig (issue 4, part 6): the real sandbox in the test process
 * (so the test sees every accepted message the moment it happens), a fresh QUEUE_PREFIX,
 * a CSV of `rows` valid rows, and the product driven only as an operator would: `campaign
 * worker` child processes that the test can SIGKILL, `campaign send/status/report/...`
 * through the CLI. Everything it starts it stops by PID in `close()`.
 */

/** `campaign status ID --json`. */
export interface StatusJson {
  id: string;
  state: string;
  total: number;
  queued: number;
  sending: number;
  sent: number;
  failed: number;
  rejected: number;
  skipped: number;
  unknown: number;
  cancelled?: number;
  pausedReason?: string | null;
  finishedAt: string | null;
}

/** One line of `campaign report ID --out FILE`. */
export interface ReportRow {
  row: number;
  phone: string;
  status: string;
  messageId: string;
  errorCode: string;
  errorDetail: string;
  attempts: number;
}

export interface SendSummary {
  id: string;
  rows: number;
  queued: number;
  rejected: number;
  skipped: number;
}

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
}

/** Resolves `promise`, or rejects after `ms` with what `explain` says about the state then. */
export async function within<T>(ms: number, promise: Promise<T>, explain: () => string | Promise<string>): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_, reject) => {
    timer = setTimeout(() => {
      Promise.resolve()
        .then(explain)
        .then(
          (text) => reject(new Error(`not within ${ms} ms: ${text}`)),
          (error: unknown) => reject(new Error(`not within ${ms} ms (and explaining failed: ${String(error)})`)),
        );
    }, ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
}

/** Resolves once `pattern` matches what `process` printed after offset `from` (default: from now on). */
export function outputAfter(process: CliProcess, pattern: RegExp, from = process.output.length): Promise<RegExpMatchArray> {
  return new Promise((resolve, reject) => {
    const check = () => {
      const match = process.output.slice(from).match(pattern);
      if (match !== null) {
        cleanup();
        resolve(match);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`process exited (${code}) before printing ${pattern}`));
    };
    const cleanup = () => {
      process.child.stdout?.off('data', check);
      process.child.stderr?.off('data', check);
      process.child.off('exit', onExit);
    };
    // Registered after CliProcess's own collectors, so `output` already holds the chunk.
    process.child.stdout?.on('data', check);
    process.child.stderr?.on('data', check);
    process.child.on('exit', onExit);
    check();
  });
}

/** The digits Meta calls the wa_id of the n-th CSV row's phone. */
export function waIdOfRow(n: number): string {
  return phoneNumber(n).replace(/\D/g, '');
}

export class FaultHarness {
  readonly env: Record<string, string>;
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
  ) {
    this.prefix = freshPrefix(options.label);
    this.csvFile = join(dir, `${options.label}.csv`);
    this.#cleanupDir = cleanupDir;
    this.env = {
      REDIS_URL: options.redisUrl ?? redisUrl(),
      QUEUE_PREFIX: this.prefix,
      WHATSAPP_API_URL: sandbox.url,
      WHATSAPP_ACCESS_TOKEN: options.token ?? 'fault-token',
      WHATSAPP_PHONE_NUMBER_ID: PHONE_NUMBER_ID,
      SEND_RATE: String(options.sendRate),
      LOG_LEVEL: 'info',
      REPORTS_DIR: join(dir, 'reports'),
      ...options.workerEnv,
    };
  }

  static async start(options: HarnessOptions): Promise<FaultHarness> {
    const dir = await tempDir();
    const templates = await loadTemplatesFile(SAMPLE_TEMPLATES);
    const sandbox = await startSandbox({ templates, accessToken: options.token ?? 'fault-token', messagesPerSecond: options.sandboxMps });
    const harness = new FaultHarness(options, sandbox, dir.dir, dir.cleanup);
    await writeCampaignCsv(harness.csvFile, options.rows);
    return harness;
  }

  setFaults(faults: FaultSettings): void {
    this.sandbox.setFaults(faults);
  }

  stats(): SandboxStats {
    return this.sandbox.stats();
  }

  /** Starts `campaign worker` and resolves once it logged `send worker started`. */
  async startWorker(extraEnv: Record<string, string> = {}): Promise<CliProcess> {
    const worker = new CliProcess(['worker'], { ...this.env, ...extraEnv });
    this.workers.push(worker);
    const notify = () => this.#outputListeners.forEach((listener) => listener());
    worker.child.stdout?.on('data', notify);
    worker.child.stderr?.on('data', notify);
    await within(30_000, worker.waitFor(/send worker started/), () => `worker ${worker.child.pid ?? '?'} output:\n${worker.output}`);
    return worker;
  }

  /** `campaign ARGS` with this rig's environment; throws (with stderr) unless it exits 0. */
  async cli(args: string[], extraEnv: Record<string, string> = {}): Promise<CliResult> {
    const result = await runCli(args, { ...this.env, ...extraEnv });
    if (result.code !== 0) throw new Error(`campaign ${args.join(' ')} exited ${result.code}:\n${result.stderr}${result.stdout}`);
    return result;
  }

  /** `campaign send` of the rig's CSV (sample `order_update` template) with `--json`. */
  async send(): Promise<SendSummary> {
    const result = await this.cli([
      'send', this.csvFile,
      '--template', 'order_update',
      '--language', 'en_US',
      '--params', 'first_name,order_id',
      '--templates', SAMPLE_TEMPLATES,
      '--json',
    ]);
    return JSON.parse(result.stdout) as SendSummary;
  }

  async status(id: string): Promise<StatusJson> {
    return JSON.parse((await this.cli(['status', id, '--json'])).stdout) as StatusJson;
  }

  async report(id: string): Promise<ReportRow[]> {
    const out = join(this.dir, `${id}.report.csv`);
    await this.cli(['report', id, '--out', out]);
    const records = parse<Record<string, string>>(await readFile(out, 'utf8'), { columns: true, skip_empty_lines: true });
    return records.map((r) => ({
      row: Number(r.row),
      phone: r.phone ?? '',
      status: r.status ?? '',
      messageId: r.message_id ?? '',
      errorCode: r.error_code ?? '',
      errorDetail: r.error_detail ?? '',
      attempts: Number(r.attempts),
    }));
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
    return within(ms, reached, () => `sandbox accepted ${this.accepted().length} of ${count}; ${this.describeWorkers()}`).finally(unsubscribe);
  }

  /**
   * Resolves when a worker logs that it recorded the campaign's last answer. As a fallback
   * (a row answered by BullMQ's own give-up path completes the campaign without that log
   * line) `campaign status` is asked every 5 s. Returns the final status.
   */
  async waitForCompletion(id: string, ms: number): Promise<StatusJson> {
    const pattern = new RegExp(`"campaignId":"${id}"[^\\n]*"msg":"campaign completed"`);
    let done = false;
    let last: StatusJson | undefined;
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
    const polled = (async () => {
      while (!done) {
        await new Promise((r) => setTimeout(r, 5000));
        if (done) return;
        last = await this.status(id).catch(() => last);
        if (last?.state === 'completed') return;
      }
    })();
    try {
      await within(ms, Promise.race([logged, polled]), async () => {
        last = await this.status(id).catch(() => last);
        return `campaign ${id} not completed; status ${JSON.stringify(last)}; sandbox accepted ${this.accepted().length}; ${this.describeWorkers()}`;
      });
    } finally {
      done = true;
      this.#outputListeners.clear();
    }
    return this.status(id);
  }

  /** Polls `check` every `everyMs` until it holds (a last resort, for states nothing announces). */
  async pollUntil<T>(what: string, ms: number, everyMs: number, check: () => Promise<T | undefined> | T | undefined): Promise<T> {
    let stop = false;
    const loop = (async () => {
      for (;;) {
        const value = await check();
        if (value !== undefined) return value;
        if (stop) throw new Error('stopped');
        await new Promise((r) => setTimeout(r, everyMs));
      }
    })();
    try {
      return await within(ms, loop, () => `${what}; sandbox accepted ${this.accepted().length}; ${this.describeWorkers()}`);
    } finally {
      stop = true;
      loop.catch(() => undefined);
    }
  }

  /** Accepted messages per recipient (wa_id digits). */
  acceptedByWaId(): Map<string, AcceptedMessage[]> {
    const by = new Map<string, AcceptedMessage[]>();
    for (const m of this.accepted()) {
      const list = by.get(m.waId);
      if (list === undefined) by.set(m.waId, [m]);
      else list.push(m);
    }
    return by;
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
        const state = w.child.exitCode !== null || w.child.signalCode !== null ? `exited ${w.child.exitCode ?? w.child.signalCode}` : 'running';
        const tail = w.output.split('\n').filter((l) => l !== '').slice(-5).join('\n    ');
        return `worker ${w.child.pid ?? '?'} (${state}), last lines:\n    ${tail}`;
      })
      .join('\n');
  }

  /**
   * Checks the report against what the sandbox accepted: a `sent` row carries the wamid the
   * sandbox returned for that very phone; a row the sandbox never accepted is not `sent`;
   * a `failed` row was never accepted (else a recipient got a message we say failed).
   * Returns the problems found, one line each (empty = consistent).
   */
  crossCheck(report: readonly ReportRow[]): string[] {
    const problems: string[] = [];
    const byWamid = new Map(this.accepted().map((m) => [m.wamid, m]));
    const byWaId = this.acceptedByWaId();
    for (const r of report) {
      const waId = r.phone.replace(/\D/g, '');
      const accepted = byWaId.get(waId) ?? [];
      if (r.status === 'sent') {
        const m = byWamid.get(r.messageId);
        if (m === undefined) problems.push(`row ${r.row}: sent with ${r.messageId || 'no wamid'}, which the sandbox never accepted`);
        else if (m.waId !== waId) problems.push(`row ${r.row}: wamid ${r.messageId} was accepted for ${m.waId}, not ${waId}`);
      }
      if (r.status === 'failed' && accepted.length > 0) {
        problems.push(`row ${r.row}: reported failed (${r.errorCode}: ${r.errorDetail}) but the sandbox accepted it ${accepted.length}×`);
      }
    }
    return problems;
  }

  /** Kills every worker still running (by PID), closes the sandbox, removes the prefix and temp files. */
  async close(options: { removeKeys?: boolean } = {}): Promise<void> {
    await Promise.all(this.workers.map((w) => w.stop('SIGKILL')));
    await this.sandbox.close();
    if (options.removeKeys !== false) {
      const redis = new Redis(this.env.REDIS_URL ?? redisUrl(), { maxRetriesPerRequest: 1, connectTimeout: 2000 });
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
