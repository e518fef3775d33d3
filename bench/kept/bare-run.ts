import { randomBytes } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { Queue } from 'bullmq';
import { parse } from 'csv-parse';
import { Redis } from 'ioredis';
import { startPrivateRedis, type PrivateRedis } from '../capacity/private-redis.js';
import { startChild, stopChild, waitForLine } from '../support/children.js';
import { CHUNK_SIZE, PHONE_NUMBER_ID, ROOT, benchScriptArgs, productEnv } from '../support/product.js';
import { startSandboxChild } from '../support/sandbox.js';
import { census, commandStatsBytes, memoryInfo, type Census, type MemoryInfo } from './census.js';

/**
 * The baseline of the `kept` section: the same file as one plain BullMQ job a row
 * ({campaignId, row, to, values}, as bench/bare-ingest.ts writes it) with BullMQ's default
 * job options, so every completed job is kept, drained by bench/bare-worker.ts to the sandbox
 * on a redis-server of its own. No ledger, no webhooks: what a queue alone keeps per row.
 */
const QUEUE_NAME = 'send';
const CONCURRENCY = 100;

export interface BareKeptRun {
  rows: number;
  before: MemoryInfo;
  after: MemoryInfo;
  /** Bytes of Redis's per-command statistics at the end (commandStatsBytes): once a Redis. */
  commandStats: number;
  census: Census;
}

export async function bareKeptRun(file: string, rows: number): Promise<BareKeptRun> {
  const redis = await startPrivateRedis();
  const prefix = `bench-kept-bare-${randomBytes(3).toString('hex')}`;
  const campaignId = `bare${randomBytes(3).toString('hex')}`;
  const sandbox = await startSandboxChild();
  try {
    const before = await memoryInfo(redis.client);
    const queued = await ingest(redis, file, prefix, campaignId);
    if (queued !== rows) throw new Error(`the bare ingest queued ${queued} of ${rows}`);
    const worker = startChild(
      'bare-worker (kept)',
      process.execPath,
      benchScriptArgs('bare-worker.ts', [prefix, QUEUE_NAME, sandbox.url, PHONE_NUMBER_ID, String(CONCURRENCY), String(rows)]),
      productEnv(prefix, { REDIS_URL: redis.url }),
      ROOT,
    );
    try {
      await waitForLine(worker, (line) => line.includes('"drained"'), 600_000);
    } finally {
      await stopChild(worker);
    }
    const after = await memoryInfo(redis.client);
    const keys = await census(redis.client, { prefix, campaignIds: [campaignId], numbers: [PHONE_NUMBER_ID] });
    return { rows, before, after, census: keys, commandStats: await commandStatsBytes(redis.client) };
  } finally {
    await sandbox.stop();
    await redis.stop();
  }
}

/** addBulk of CHUNK_SIZE jobs at a time, BullMQ's defaults (removeOnComplete unset: completed jobs stay). */
async function ingest(redis: PrivateRedis, file: string, prefix: string, campaignId: string): Promise<number> {
  const connection = new Redis(redis.url, { maxRetriesPerRequest: null });
  const queue = new Queue(QUEUE_NAME, { connection, prefix });
  try {
    let queued = 0;
    let row = 0;
    let chunk: { name: string; data: { campaignId: string; row: number; to: string; values: string[] } }[] = [];
    let header = true;
    for await (const fields of createReadStream(file).pipe(parse()) as AsyncIterable<string[]>) {
      if (header) {
        header = false;
        continue;
      }
      row++;
      chunk.push({ name: 'send', data: { campaignId, row, to: fields[0] ?? '', values: [fields[1] ?? '', fields[2] ?? ''] } });
      if (chunk.length >= CHUNK_SIZE) {
        queued += (await queue.addBulk(chunk)).length;
        chunk = [];
      }
    }
    if (chunk.length > 0) queued += (await queue.addBulk(chunk)).length;
    return queued;
  } finally {
    await queue.close();
    await connection.quit();
  }
}
