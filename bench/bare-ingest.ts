/**
 * The ingest baseline: the least a CSV-to-BullMQ loader can do. csv-parse streams the file,
 * each row becomes one job with the product's data fields ({campaignId, row, to, values}),
 * and every 1000 rows go to `addBulk`, awaited before the next chunk. No validation, no phone
 * normalisation, no duplicate check, no ledger.
 *
 * It uses the same jobId (`${campaignId}-${row}`) and job options as the product
 * (attempts, backoff, removeOnComplete/removeOnFail), so that Redis does the same work per job
 * on both sides and the ratio measures what the product adds, not BullMQ option costs.
 *
 *   node --import tsx bench/bare-ingest.ts FILE PREFIX QUEUE CAMPAIGN_ID
 * Prints one JSON line {rows, queued}.
 */
import { createReadStream } from 'node:fs';
import { Queue } from 'bullmq';
import { parse } from 'csv-parse';
import { Redis } from 'ioredis';
import { CHUNK_SIZE, PRODUCT_JOB_OPTIONS } from './support/product.js';

const [file, prefix, queueName, campaignId] = process.argv.slice(2);
if (file === undefined || prefix === undefined || queueName === undefined || campaignId === undefined) {
  console.error('usage: bare-ingest.ts FILE PREFIX QUEUE CAMPAIGN_ID');
  process.exit(2);
}

const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const queue = new Queue(queueName, { connection, prefix });
queue.on('error', (error) => console.error(error));

interface BareJob {
  name: string;
  data: { campaignId: string; row: number; to: string; values: string[] };
  opts: typeof PRODUCT_JOB_OPTIONS & { jobId: string };
}

let rows = 0;
let queued = 0;
let chunk: BareJob[] = [];
const flush = async () => {
  const added = await queue.addBulk(chunk);
  queued += added.length;
  chunk = [];
};

let header = true;
for await (const fields of createReadStream(file).pipe(parse()) as AsyncIterable<string[]>) {
  if (header) {
    header = false;
    continue;
  }
  const row = ++rows;
  chunk.push({
    name: 'send',
    data: { campaignId, row, to: fields[0] ?? '', values: [fields[1] ?? '', fields[2] ?? ''] },
    opts: { ...PRODUCT_JOB_OPTIONS, jobId: `${campaignId}-${row}` },
  });
  if (chunk.length >= CHUNK_SIZE) await flush();
}
if (chunk.length > 0) await flush();
await queue.close();
await connection.quit();
console.log(JSON.stringify({ rows, queued }));
