import { startServeChild } from '../support/serve.js';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { campaignLedgerKeys } from '../../src/redis/ledger/ledger-keys.js';
import { webhookKeys } from '../../src/redis/webhooks/webhook-keys.js';
import { startPrivateRedis } from '../capacity/private-redis.js';
import { runToExit, startChild, stopChild, type Child } from '../support/children.js';
import { ensureCsv } from '../support/data.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, parseSendSummary, productEnv, sendArgs } from '../support/product.js';
import { startSandboxChild, type SandboxChild } from '../support/sandbox.js';
import { census, commandStatsBytes, memoryInfo, type Census, type MemoryInfo } from './census.js';

/**
 * One run of the product for the `kept` section, on a redis-server of its own: `campaign
 * send` of the file, `campaign serve` taking the sandbox's status webhooks, one `campaign
 * worker` sending unpaced (SEND_RATE=0) to `campaign sandbox --mps 0 --webhook-url <serve>`.
 * Measured once every row is settled and every status the sandbox posts is applied (the
 * inbox consumed, nothing parked), with every process stopped: their connections' buffers
 * are then not in the figure, only what Redis keeps.
 */
const APP_SECRET = 'bench-kept-secret';
/** The sandbox's status webhooks: sent and delivered for every message, read for half of them (its default readShare). */
const READ_SHARE = 0.5;
/** No progress for this long (rows sent or statuses applied) fails the run. */
const STALL_MS = 120_000;

export interface KeptRun {
  rows: number;
  /** Rows the campaign counts sent, delivered and read once every status is applied. */
  settled: { sent: number; delivered: number; read: number };
  /** Seconds from the worker's start to every status applied (a shared machine: noisy). */
  seconds: number;
  before: MemoryInfo;
  after: MemoryInfo;
  /** Bytes of Redis's per-command statistics at the end (commandStatsBytes): once a Redis. */
  commandStats: number;
  census: Census;
  load: number[];
}

export async function keptRun(rows: number): Promise<KeptRun> {
  const file = await ensureCsv(rows);
  const redis = await startPrivateRedis();
  // Not the shared Redis: no other run can have this prefix there, and the server goes with its keys.
  const prefix = `bench-kept-${randomBytes(3).toString('hex')}`;
  const env = (extra: Record<string, string> = {}) => productEnv(prefix, { REDIS_URL: redis.url, ...extra });
  const children: Child[] = [];
  let sandbox: SandboxChild | undefined;
  try {
    const load = [loadavg()[0] ?? 0];
    const before = await memoryInfo(redis.client);
    const send = startChild('campaign send', process.execPath, sendArgs(file), env(), ROOT);
    await runToExit(send, 300_000);
    const summary = parseSendSummary(send);
    if (summary.queued !== rows) throw new Error(`campaign send queued ${summary.queued} of ${rows}`);

    const started = await startServeChild(env({ WHATSAPP_APP_SECRET: APP_SECRET, WEBHOOK_VERIFY_TOKEN: 'bench-kept', LOG_LEVEL: 'warn' }));
    const serve = started.child;
    children.push(serve);
    const serviceUrl = started.url;
    sandbox = await startSandboxChild({ url: `${serviceUrl}/webhook`, appSecret: APP_SECRET });

    const t0 = performance.now();
    const worker = startChild(
      'campaign worker (kept)',
      process.execPath,
      [CAMPAIGN_BIN, 'worker'],
      env({ WHATSAPP_API_URL: sandbox.url, SEND_RATE: '0', LOG_LEVEL: 'warn' }),
      ROOT,
    );
    children.push(worker);
    const settled = await waitUntilApplied(redis.client, prefix, summary.id, rows, [worker, serve]);
    const seconds = (performance.now() - t0) / 1000;
    // The worker first (nothing left to send), then Meta's side, then the service its webhooks went to.
    await stopChild(worker);
    await sandbox.stop();
    sandbox = undefined;
    await stopChild(serve);
    children.length = 0;
    load.push(loadavg()[0] ?? 0);
    const after = await memoryInfo(redis.client);
    const keys = await census(redis.client, { prefix, campaignIds: [summary.id], numbers: [PHONE_NUMBER_ID] });
    return { rows, settled, seconds, before, after, census: keys, commandStats: await commandStatsBytes(redis.client), load };
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await sandbox?.stop();
    await redis.stop();
  }
}

/**
 * Polls until the campaign is finished with every row sent, every row delivered and the
 * sandbox's share read, the webhook inbox has nothing unread or unacknowledged and nothing
 * is parked. Fails when nothing moves for STALL_MS or a child exits.
 */
async function waitUntilApplied(
  redis: Redis,
  prefix: string,
  id: string,
  rows: number,
  children: readonly Child[],
): Promise<KeptRun['settled']> {
  const { campaign } = campaignLedgerKeys(prefix, PHONE_NUMBER_ID, id);
  const { inbox, parked } = webhookKeys(prefix);
  const wantRead = Math.floor(rows * READ_SHARE);
  let exited: string | undefined;
  for (const child of children) void child.exited.then(() => (exited ??= `${child.name} exited\n${child.tail()}`));
  let last = '';
  let lastProgress = performance.now();
  for (;;) {
    await sleep(1000);
    if (exited !== undefined) throw new Error(`kept: ${exited}`);
    const [sentText, deliveredText, readText, finishedAt] = await redis.hmget(campaign, 'n:sent', 'n:delivered', 'n:read', 'finishedAt');
    const counts = { sent: Number(sentText ?? 0), delivered: Number(deliveredText ?? 0), read: Number(readText ?? 0) };
    const unread = await inboxBacklog(redis, inbox);
    const parkedNow = await redis.zcard(parked);
    const done = finishedAt !== null && counts.sent === rows && counts.delivered === rows && counts.read >= wantRead;
    if (done && unread === 0 && parkedNow === 0) return counts;
    const now = JSON.stringify([counts, unread, parkedNow]);
    if (now !== last) {
      last = now;
      lastProgress = performance.now();
    } else if (performance.now() - lastProgress > STALL_MS) {
      throw new Error(
        `kept: stalled at sent ${counts.sent}, delivered ${counts.delivered}, read ${counts.read} of ${rows}; ` +
          `inbox unread or unacknowledged ${unread}, parked ${parkedNow}`,
      );
    }
  }
}

/** Entries of the inbox not yet read by the appliers' group plus those read and not acknowledged. */
async function inboxBacklog(redis: Redis, inbox: string): Promise<number> {
  if ((await redis.exists(inbox)) === 0) return 0;
  const groups = (await redis.xinfo('GROUPS', inbox)) as unknown[][];
  let backlog = 0;
  for (const group of groups) {
    const fields = new Map<string, unknown>();
    for (let i = 0; i + 1 < group.length; i += 2) fields.set(String(group[i]), group[i + 1]);
    // `lag` is null when Redis cannot tell (entries deleted in between): fall back on the stream's length.
    const lag = fields.get('lag');
    backlog += Number(fields.get('pending') ?? 0) + (lag === null || lag === undefined ? await redis.xlen(inbox) : Number(lag));
  }
  return backlog;
}
