import type { Redis } from 'ioredis';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import type { SendJob } from '../../src/campaigns/send-job.js';
import { RedisLedger } from '../../src/redis/ledger/redis-ledger.js';
import { CliProcess, runCli } from '../support/cli-process.js';
import { LEDGER_TEST_NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';
import { freshPrefix, redisUrl, removePrefix, testRedis } from '../support/redis.js';
import { pattern } from '../support/long-pattern.js';

/**
 * `campaign status ID --watch` as an operator runs it, in its own process, while the test
 * moves the campaign on through the ledger (claim and settle, as a worker does, and status
 * webhooks): a line each second whose counts grow, exit 0 when the campaign completes or is
 * cancelled, 130 on Ctrl-C, and `status`'s error for an unknown campaign.
 */
const NUMBER = LEDGER_TEST_NUMBER;

/** Stdout split into lines as they arrive; `next()` resolves with the next whole line, or rejects when the process exits first. */
class Lines {
  readonly #lines: string[] = [];
  readonly #waiting: ((line: string | undefined) => void)[] = [];
  #buffer = '';
  #closed = false;

  constructor(readonly process: CliProcess) {
    process.child.stdout?.on('data', (d: Buffer) => {
      this.#buffer += d.toString();
      let end: number;
      while ((end = this.#buffer.indexOf('\n')) >= 0) {
        this.#push(this.#buffer.slice(0, end));
        this.#buffer = this.#buffer.slice(end + 1);
      }
    });
    process.child.on('close', () => {
      this.#closed = true;
      for (const resolve of this.#waiting.splice(0)) resolve(undefined);
    });
  }

  #push(line: string): void {
    const resolve = this.#waiting.shift();
    if (resolve === undefined) this.#lines.push(line);
    else resolve(line);
  }

  /** The next line, or undefined once the process has closed its output. */
  next(): Promise<string | undefined> {
    const line = this.#lines.shift();
    if (line !== undefined) return Promise.resolve(line);
    if (this.#closed) return Promise.resolve(undefined);
    return new Promise((resolve) => this.#waiting.push(resolve));
  }
}

describe('campaign status --watch', () => {
  let redis: Redis;
  let prefix: string;
  let ledger: RedisLedger;
  let env: Record<string, string>;
  let processes: CliProcess[];

  beforeEach(() => {
    redis = testRedis();
    prefix = freshPrefix('status-watch');
    ledger = new RedisLedger(redis, prefix);
    env = { REDIS_URL: redisUrl(), QUEUE_PREFIX: prefix, LOG_LEVEL: 'warn' };
    processes = [];
  });

  afterEach(async () => {
    for (const p of processes) await p.stop('SIGKILL');
    await removePrefix(redis, prefix);
    await redis.quit();
  });

  function watch(args: string[]): { process: CliProcess; lines: Lines } {
    const process = new CliProcess(['status', ...args], env);
    processes.push(process);
    return { process, lines: new Lines(process) };
  }

  /** A running campaign of `rows` rows, every one fed (as the feeder does before a worker claims it). */
  async function runningCampaign(id: string, rows: number): Promise<SendJob[]> {
    await ingestQueuedCampaign(ledger, id, rows);
    const { jobs } = await feedAll(ledger);
    expect(jobs).toHaveLength(rows);
    return jobs;
  }

  /** What a worker records for a job: claimed, then sent with message ID w<row>, and Meta's `delivered` for it. */
  async function send(jobs: readonly SendJob[]): Promise<void> {
    for (const job of jobs) {
      expect((await ledger.claim(job, NUMBER)).outcome).toBe('claimed');
      await ledger.settle(job, { status: 'sent', wamid: `w${job.row}` }, NUMBER);
    }
    await ledger.applyStatuses(
      jobs.map((job) => ({ phoneNumberId: NUMBER, wamid: `w${job.row}`, kind: 'delivered' as const, at: Date.now() })),
    );
  }

  it('--json: a status object per line while the campaign is sent, counts growing, rate and ETA; exit 0 when it completes', async () => {
    const jobs = await runningCampaign('w1', 40);
    const { process, lines } = watch(['w1', '--watch', '--json']);
    const seen: Record<string, unknown>[] = [];
    // Each line the watch prints moves the campaign on by 5 rows, as a worker would in a second.
    for (let line = await lines.next(), sent = 0; line !== undefined; line = await lines.next()) {
      seen.push(JSON.parse(line) as Record<string, unknown>);
      if (sent < jobs.length) {
        await send(jobs.slice(sent, sent + 5));
        sent += 5;
      }
    }
    expect(await process.stop(), process.output).toBe(0);

    // The object `status --json` prints, plus rate and etaSeconds.
    const plain = await runCli(['status', 'w1', '--json'], env);
    const keys = Object.keys(JSON.parse(plain.stdout) as object);
    for (const view of seen) expect(Object.keys(view).sort()).toEqual([...keys, 'rate', 'etaSeconds'].sort());

    const sents = seen.map((v) => v.sent as number);
    expect(sents[0]).toBe(0);
    expect(sents.every((n, i) => i === 0 || n >= (sents[i - 1] ?? 0))).toBe(true);
    expect(new Set(sents).size).toBeGreaterThan(3);
    expect(seen.some((v) => v.state === 'running' && (v.sent as number) > 0 && (v.sent as number) < 40)).toBe(true);
    // A rate once two reads are apart, and with it an ETA while rows are left.
    expect(seen.some((v) => typeof v.rate === 'number' && v.rate > 0)).toBe(true);
    expect(seen.some((v) => v.state === 'running' && typeof v.etaSeconds === 'number' && v.etaSeconds > 0)).toBe(true);
    expect(seen.at(-1)).toMatchObject({
      id: 'w1',
      state: 'completed',
      total: 40,
      sent: 40,
      delivered: 40,
      queued: 0,
      confirming: 0,
      unknown: 0,
      etaSeconds: 0,
    });
  });

  it('Ctrl-C (SIGINT) leaves the watch cleanly with exit 130; the campaign is untouched', async () => {
    await runningCampaign('w2', 10);
    const { process, lines } = watch(['w2', '--watch', '--json']);
    expect(JSON.parse((await lines.next()) ?? 'null')).toMatchObject({ id: 'w2', state: 'running', queued: 10 });
    expect(await process.stop('SIGINT'), process.output).toBe(130);
    expect(process.output).not.toMatch(/Error|INTERNAL/);
    expect((await ledger.status('w2'))?.state).toBe('running');
  });

  it('without --json and not on a terminal: a plain line per second, ending when the campaign is cancelled', async () => {
    const jobs = await runningCampaign('w3', 10);
    await send(jobs.slice(0, 4));
    const { process, lines } = watch(['w3', '--watch']);
    const first = (await lines.next()) ?? '';
    // No rate measured yet: the 6 rows left at the number's SEND_RATE (80/s).
    expect(first).toMatch(
      pattern(
        /^\d{4}-\d\d-\d\dT\S+Z w3 running {2}40% 4\/10 rows done {2}rate - {2}ETA 1 s {2}sent/,
        / 4 \(delivered 4, read 0\) {2}failed 0 {2}unknown 0 {2}queued 6 {2}confirming 0/,
      ),
    );
    expect(first.includes('\u001b')).toBe(false);
    await ledger.cancel('w3');
    let last = first;
    for (let line = await lines.next(); line !== undefined; line = await lines.next()) last = line;
    expect(await process.stop(), process.output).toBe(0);
    expect(last).toMatch(/ w3 cancelled /);
  });

  it('an unknown campaign: the same error and exit code as `status`', async () => {
    const [watched, plain] = await Promise.all([runCli(['status', 'nope', '--watch', '--json'], env), runCli(['status', 'nope'], env)]);
    expect(watched.code).toBe(1);
    expect(plain.code).toBe(1);
    expect(watched.stdout).toBe('');
    expect(watched.stderr).toBe(plain.stderr);
    expect(watched.stderr).toMatch(/CAMPAIGN_NOT_FOUND: No campaign nope/);
  });
});
