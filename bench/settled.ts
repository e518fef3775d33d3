import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { campaignLedgerKeys, sentGuardKeys } from '../src/redis/ledger/ledger-keys.js';
import { storedRowRange } from '../src/redis/ledger/row-chunks.js';
import { claimKeys } from '../src/redis/ledger/script-keys.js';
import { withLedgerCommands } from '../src/redis/ledger/ledger-scripts.js';
import { RedisLedger } from '../src/redis/ledger/redis-ledger.js';
import { storedWamid } from '../src/redis/ledger/stored-row.js';
import { startChild, stopChild, type Child } from './support/children.js';
import { ensureCsv } from './support/data.js';
import { figure, fmt, type SectionResult } from './support/figures.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, campaignSend, productEnv } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import { startSandboxChild } from './support/sandbox.js';
import { decodeStoredRow } from '../src/redis/ledger/row-codec.js';

/**
 * Redis per settled row: one campaign of `rows` rows sent unpaced (SEND_RATE=0) to a sandbox
 * that keeps only its newest 1,000 messages, then the bytes each key family keeps per row
 * (MEMORY USAGE … SAMPLES 0 summed over the family's keys, and used_memory beside it): once
 * the campaign is completed, and again once the duplicate window has passed. The window is
 * not waited for: the claim script's prune of the duplicate guard runs with the ledger's
 * clock moved past it (the prune every claim runs), until the guard holds nothing older.
 */
export const SETTLED_ROWS = 1_000_000;
/** Rows kept for the retention period: the target is on these two families together. */
const TARGET_BYTES = 250;
const DUPLICATE_WINDOW_MS = 24 * 3_600_000;
const STALL_MS = 120_000;

type Family = 'rows' | 'wamids' | 'guard' | 'queue' | 'other';

export async function benchSettled(options: { rows: number; redis: Redis }): Promise<SectionResult> {
  const { rows, redis } = options;
  console.error(`  settled: generating ${rows} rows (reused when it exists)`);
  const file = await ensureCsv(rows);
  const sandbox = await startSandboxChild(undefined, [], ['--retain-accepted', '1000']);
  const prefix = freshPrefix('settled');
  let worker: Child | undefined;
  try {
    const before = await usedMemory(redis);
    const summary = await campaignSend(file, prefix);
    if (summary.queued !== rows) throw new Error(`campaign send queued ${summary.queued} of ${rows}`);
    await sandbox.reset();
    const env = productEnv(prefix, { WHATSAPP_API_URL: sandbox.url, SEND_RATE: '0', LOG_LEVEL: 'warn' });
    worker = startChild('campaign worker (settled)', process.execPath, [CAMPAIGN_BIN, 'worker'], env, ROOT);
    await waitUntilCompleted(redis, prefix, summary.id, rows, worker);
    await stopChild(worker);
    worker = undefined;
    const completed = { families: await familyBytes(redis, prefix), used: (await usedMemory(redis)) - before };
    // Whether the guard would go by itself once the window passes: its keys' time to live (-1: none).
    const guardTtlMs = await redis.pttl(`${sentGuardKeys(prefix, PHONE_NUMBER_ID).sent}:map`);
    console.error(`  settled: completed; ${describe(completed.families, rows)}`);
    await applyDelivered(redis, prefix, summary.id, rows);
    const delivered = { families: await familyBytes(redis, prefix), used: (await usedMemory(redis)) - before };
    console.error(`  settled: every row delivered; ${describe(delivered.families, rows)}`);
    await pruneAfterWindow(redis, prefix, summary.id);
    const afterWindow = { families: await familyBytes(redis, prefix), used: (await usedMemory(redis)) - before };
    console.error(`  settled: after the duplicate window; ${describe(afterWindow.families, rows)}`);
    const result = settledResult(rows, completed, delivered, afterWindow);
    const expiry = guardTtlMs < 0 ? 'has no expiry' : `expires in ${fmt(guardTtlMs / 3_600_000, 2)} h`;
    result.notes.push(`settled: once completed, the duplicate guard ${expiry}`);
    return result;
  } finally {
    if (worker !== undefined) await stopChild(worker);
    await sandbox.stop();
    await deletePrefix(redis, prefix);
  }
}

/** Polls the campaign's hash until `finishedAt` is set and every row is sent. */
async function waitUntilCompleted(redis: Redis, prefix: string, id: string, rows: number, worker: Child): Promise<void> {
  const { campaign } = campaignLedgerKeys(prefix, PHONE_NUMBER_ID, id);
  let last = -1;
  let lastProgress = performance.now();
  for (;;) {
    await sleep(2000);
    const [sent, finishedAt] = await redis.hmget(campaign, 'n:sent', 'finishedAt');
    const done = Number(sent ?? 0);
    if (finishedAt !== null && done === rows) return;
    if (done > last) {
      last = done;
      lastProgress = performance.now();
    } else if (performance.now() - lastProgress > STALL_MS) {
      throw new Error(`settled: stalled at ${done} of ${rows} sent\n${worker.tail()}`);
    }
  }
}

/** Each row's `delivered` status webhook, as `serve` applies it (the ledger's applyStatuses), 1,000 a call. */
async function applyDelivered(redis: Redis, prefix: string, id: string, total: number): Promise<void> {
  const ledger = new RedisLedger(redis, prefix);
  const { rows } = campaignLedgerKeys(prefix, PHONE_NUMBER_ID, id);
  const at = Date.now();
  for (let start = 1; start <= total; start += 1000) {
    const updates = [];
    for (const stored of await storedRowRange(redis, rows, start, Math.min(start + 999, total))) {
      const row = stored === null ? undefined : decodeStoredRow(stored);
      const wamid = row === undefined ? undefined : storedWamid(row);
      if (wamid !== undefined) updates.push({ wamid, kind: 'delivered' as const, at, phoneNumberId: PHONE_NUMBER_ID });
    }
    if (updates.length > 0) await ledger.applyStatuses(updates);
  }
}

/** The claim script with no rows and the ledger's clock past the window: only its prune of the duplicate guard runs. */
async function pruneAfterWindow(redis: Redis, prefix: string, id: string): Promise<void> {
  const ledger = withLedgerCommands(redis.duplicate());
  try {
    const { sent } = sentGuardKeys(prefix, PHONE_NUMBER_ID);
    const clock = String(DUPLICATE_WINDOW_MS + 60_000);
    // The prune walks at a pace set by time (includes/bucket-map-write.lua): each call a window later walks a few buckets.
    // The map counts its entries; stop when a whole walk removes nothing.
    const messages = async () => Number((await redis.hget(`${sent}:map`, 'count')) ?? 0);
    const keys = claimKeys(prefix, PHONE_NUMBER_ID, id);
    let idle = 0;
    for (let left = await messages(), step = 1; left > 0 && idle < 1_000; step++) {
      await ledger.cwClaim(...keys, String(Number(clock) + step * DUPLICATE_WINDOW_MS), DUPLICATE_WINDOW_MS, id);
      const now = await messages();
      idle = now < left ? 0 : idle + 1;
      left = now;
    }
    const left = await messages();
    if (left > 0) throw new Error(`settled: the prune left ${left} guard entries`);
  } finally {
    ledger.disconnect();
  }
}

/** MEMORY USAGE (SAMPLES 0: every element) of each key under the prefix, summed by family. */
async function familyBytes(redis: Redis, prefix: string): Promise<Record<Family, number>> {
  const bytes: Record<Family, number> = { rows: 0, wamids: 0, guard: 0, queue: 0, other: 0 };
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 5000);
    cursor = next;
    const pipeline = redis.pipeline();
    for (const key of keys) pipeline.memory('USAGE', key, 'SAMPLES', 0);
    const answers = (await pipeline.exec()) ?? [];
    keys.forEach((key, i) => {
      bytes[familyOf(key)] += Number(answers[i]?.[1] ?? 0);
    });
  } while (cursor !== '0');
  return bytes;
}

function familyOf(key: string): Family {
  if (/:campaign:[^:]+:rows(:|$)/.test(key) || /:campaign:[^:]+:values(:|$)/.test(key)) return 'rows';
  if (/:wamids(:|$)/.test(key)) return 'wamids';
  if (/:sent(-at)?:\d+(:map(:\d+)?)?$/.test(key)) return 'guard';
  if (/^[^:]+:(\{[^}]+\}:)?send/.test(key) || /:bull:|:send:/.test(key)) return 'queue';
  return 'other';
}

function describe(families: Record<Family, number>, rows: number): string {
  return Object.entries(families)
    .map(([family, bytes]) => `${family} ${fmt(bytes / rows, 1)} B/row`)
    .join(', ');
}

async function usedMemory(redis: Redis): Promise<number> {
  const info = await redis.info('memory');
  return Number(/^used_memory:(\d+)/m.exec(info)?.[1] ?? Number.NaN);
}

interface Measured {
  families: Record<Family, number>;
  used: number;
}

function settledResult(rows: number, completed: Measured, delivered: Measured, afterWindow: Measured): SectionResult {
  const perRow = (bytes: number) => bytes / rows;
  const kept = (m: Measured) => perRow(m.families.rows + m.families.wamids);
  const check = (value: number) => (value <= TARGET_BYTES ? [] : [`more than ${TARGET_BYTES} B a row`]);
  const families: Family[] = ['rows', 'wamids', 'guard', 'queue', 'other'];
  const point = (label: string, m: Measured) => [
    figure({
      label: `${label}: rows + message-ID index`,
      unit: 'B/row',
      ours: [kept(m)],
      baseline: [kept(completed)],
      baselineLabel: 'once completed',
      judgedOn: 'worst run',
      target: `≤ ${TARGET_BYTES} B`,
      check,
      digits: 1,
    }),
    ...[
      ...families.map((family) => [`  ${family}`, m.families[family]] as const),
      ['  used_memory since before ingest', m.used] as const,
    ].map(([name, bytes]) =>
      figure({
        label: name,
        unit: 'B/row',
        ours: [perRow(bytes)],
        baseline: [Number.NaN],
        baselineLabel: '',
        judgedOn: 'worst run',
        target: '',
        check: () => [],
        digits: 1,
        informational: true,
      }),
    ),
  ];
  return {
    section: 'settled',
    columns: { ours: 'B/row', baseline: 'completed', ratio: 'ratio' },
    figures: [
      ...point('Completed', completed),
      ...point('Every row delivered', delivered),
      ...point('Duplicate window passed', afterWindow),
    ],
    runs: [{ rows, completed, delivered, afterWindow }],
    method: [
      `settled: ${fmt(rows)} rows sent by one \`campaign worker\` (SEND_RATE=0) to \`campaign sandbox --mps 0 --retain-accepted 1000\`; ` +
        "MEMORY USAGE … SAMPLES 0 summed per key family under the run's prefix, divided by the rows: once the campaign completed, " +
        "after a `delivered` status for every row (applyStatuses, as `serve` applies webhooks), and after the claim script's prune ran " +
        'with the ledger clock 24 h + 1 min ahead (the duplicate window passed)',
    ],
    notes: [],
  };
}
