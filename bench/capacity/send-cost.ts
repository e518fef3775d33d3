import { startServeChild } from '../support/serve.js';
import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import { runToExit, startChild, stopChild, waitForLine, type Child } from '../support/children.js';
import { cpuSeconds } from '../support/cpu.js';
import { ensureCsv } from '../support/data.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, parseSendSummary, productEnv, sendArgs } from '../support/product.js';
import type { SandboxChild } from '../support/sandbox.js';
import type { PrivateRedis } from './private-redis.js';
import { keyCensus, redisDelta, redisSnapshot, type KeyCensus, type RedisDelta } from './redis-stats.js';
import { acceptedMessages, postStatuses } from './status-posts.js';

/**
 * The cost of one message on one Redis of our own, in two steps:
 * 1. send: `campaign send` of a file, then one `campaign worker` drains it unpaced
 *    (SEND_RATE=0) to `campaign sandbox --mps 0`: the worker's CPU from its ready line to
 *    "campaign completed", Redis's commands, CPU and memory over the same span, the sandbox's
 *    CPU (what Meta's side costs this machine), and Redis memory after ingest and after settle;
 * 2. statuses: `campaign serve` takes sent, delivered and read for every message (one status
 *    per POST, Meta's worst case), posted by this process: statuses/s applied, serve's CPU and
 *    Redis's commands and CPU per status, and Redis memory once they are applied: what a
 *    settled row keeps, by key.
 */
export const COST_ROWS = 20_000;
const CONCURRENCY = 100;
export const STATUSES_PER_MESSAGE = 3;
const APP_SECRET = 'bench-capacity-secret';

export interface SendCostRun {
  rows: number;
  load: number[];
  worker: { cpuSecondsPer1000: number; seconds: number; messagesPerSecond: number };
  sandboxCpuSecondsPer1000: number;
  sendRedis: RedisDelta;
  /** used_memory after ingest, before any send, per row. */
  pendingBytesPerRow: number;
  /** used_memory after every row is sent and settled, before any status, per row (Δ from the empty prefix). */
  settledBytesPerRow: number;
  statuses: { events: number; perSecond: number; serveCpuSecondsPer1000: number; redis: RedisDelta };
  /** used_memory once every status is applied, per row, and where it is. */
  keptBytesPerRow: number;
  census: KeyCensus;
  /**
   * keptBytesPerRow split by the census's classes. MEMORY USAGE sums less than used_memory
   * grows by (the allocator's rounding and the hashes' tables are partly outside it), so each
   * class gets its share of the used_memory growth, not its MEMORY USAGE alone.
   */
  keptByClass: { retained: number; window: number; fixed: number };
}

export async function measureSendCost(redis: PrivateRedis, sandbox: SandboxChild, rows = COST_ROWS): Promise<SendCostRun> {
  const file = await ensureCsv(rows);
  // Not the shared Redis: no other run can have this prefix there, and cleanup is this file's own.
  const prefix = `bench-capacity-${randomBytes(3).toString('hex')}`;
  const env = (extra: Record<string, string> = {}) => productEnv(prefix, { REDIS_URL: redis.url, ...extra });
  const children: Child[] = [];
  try {
    await sandbox.reset();
    const load = [loadavg()[0] ?? 0];
    const empty = await redisSnapshot(redis.client);
    const send = startChild('campaign send', process.execPath, sendArgs(file), env(), ROOT);
    await runToExit(send, 300_000);
    const summary = parseSendSummary(send);
    if (summary.queued !== rows) throw new Error(`campaign send queued ${summary.queued} of ${rows}`);
    const ingested = await redisSnapshot(redis.client);

    const worker = startChild(
      'campaign worker',
      process.execPath,
      [CAMPAIGN_BIN, 'worker'],
      env({ WHATSAPP_API_URL: sandbox.url, SEND_RATE: '0', SEND_CONCURRENCY: String(CONCURRENCY) }),
      ROOT,
    );
    children.push(worker);
    const completed = waitForLine(worker, (line) => line.includes('campaign completed') && line.includes(summary.id), 600_000);
    const sandboxBefore = cpuSeconds(sandbox.child.pid);
    const redisBefore = await redisSnapshot(redis.client);
    await waitForLine(worker, (line) => /send worker started/.test(line), 60_000);
    const workerBefore = cpuSeconds(worker.pid);
    const t0 = performance.now();
    await completed;
    const seconds = (performance.now() - t0) / 1000;
    const workerCpu = (cpuSeconds(worker.pid) ?? Number.NaN) - (workerBefore ?? Number.NaN);
    const sandboxCpu = (cpuSeconds(sandbox.child.pid) ?? Number.NaN) - (sandboxBefore ?? Number.NaN);
    const sendRedis = redisDelta(redisBefore, await redisSnapshot(redis.client));
    await stopChild(worker);
    const settled = await redisSnapshot(redis.client);

    const statuses = await applyStatuses(redis, sandbox, prefix, summary.id, rows, env, children);
    const kept = await redisSnapshot(redis.client);
    const census = await keyCensus(redis.client, prefix, [summary.id], [PHONE_NUMBER_ID]);
    load.push(loadavg()[0] ?? 0);
    return {
      rows,
      load,
      worker: { cpuSecondsPer1000: (workerCpu / rows) * 1000, seconds, messagesPerSecond: rows / seconds },
      sandboxCpuSecondsPer1000: (sandboxCpu / rows) * 1000,
      sendRedis,
      pendingBytesPerRow: (ingested.usedMemory - empty.usedMemory) / rows,
      settledBytesPerRow: (settled.usedMemory - empty.usedMemory) / rows,
      statuses,
      keptBytesPerRow: (kept.usedMemory - empty.usedMemory) / rows,
      census,
      keptByClass: shareOut((kept.usedMemory - empty.usedMemory) / rows, census),
    };
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await deleteAll(redis, prefix);
  }
}

async function applyStatuses(
  redis: PrivateRedis,
  sandbox: SandboxChild,
  prefix: string,
  campaignId: string,
  rows: number,
  env: (extra?: Record<string, string>) => NodeJS.ProcessEnv,
  children: Child[],
): Promise<SendCostRun['statuses']> {
  const started = await startServeChild(
    env({ WHATSAPP_APP_SECRET: APP_SECRET, WEBHOOK_VERIFY_TOKEN: 'bench-capacity', LOG_LEVEL: 'warn' }),
  );
  const serve = started.child;
  children.push(serve);
  const url = `${started.url}/webhook`;
  const accepted = await acceptedMessages(sandbox);
  const before = await redisSnapshot(redis.client);
  const serveBefore = cpuSeconds(serve.pid);
  const result = await postStatuses({ url, appSecret: APP_SECRET, messages: accepted, redis: redis.client, prefix, campaignId, rows });
  const serveCpu = (cpuSeconds(serve.pid) ?? Number.NaN) - (serveBefore ?? Number.NaN);
  const delta = redisDelta(before, await redisSnapshot(redis.client));
  await stopChild(serve);
  return { events: result.events, perSecond: result.perSecond, serveCpuSecondsPer1000: (serveCpu / result.events) * 1000, redis: delta };
}

function shareOut(perRow: number, census: KeyCensus): SendCostRun['keptByClass'] {
  const { retained, window, fixed } = census.bytesByClass;
  const total = retained + window + fixed;
  return { retained: (perRow * retained) / total, window: (perRow * window) / total, fixed: (perRow * fixed) / total };
}

/** Deletes the run's keys on the private Redis (SCAN + UNLINK). */
async function deleteAll(redis: PrivateRedis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await redis.client.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 5000);
    cursor = next;
    // DEL, not UNLINK: freed before the next run takes its "empty" used_memory (UNLINK frees in the background).
    if (keys.length > 0) await redis.client.del(...keys);
  } while (cursor !== '0');
}
