/**
 * The drain (and rate) baseline: a plain BullMQ Worker whose processor POSTs the job's
 * template message to the sandbox with undici, reads the answer, and does nothing else: no
 * payload parsing, no ledger claim or settle, no error classification. Same concurrency as the
 * product's worker; an undici Agent with one socket per concurrent job, like the product's.
 *
 *   node --import tsx bench/bare-worker.ts PREFIX QUEUE API_URL PHONE_NUMBER_ID CONCURRENCY EXPECTED [RATE]
 * EXPECTED > 0: prints {"msg":"drained",...} once that many jobs have completed.
 * RATE > 0: BullMQ's plain limiter { max: RATE, duration: 1000 } (the naive setting, for the
 * rate baseline). Runs until SIGTERM/SIGINT, then closes gracefully like the product.
 */
import { Worker, type Job } from 'bullmq';
import { Redis } from 'ioredis';
import { Agent, request } from 'undici';

const [prefix, queueName, apiUrl, phoneNumberId, concurrencyArg, expectedArg, rateArg] = process.argv.slice(2);
if (prefix === undefined || queueName === undefined || apiUrl === undefined || phoneNumberId === undefined) {
  console.error('usage: bare-worker.ts PREFIX QUEUE API_URL PHONE_NUMBER_ID CONCURRENCY EXPECTED [RATE]');
  process.exit(2);
}
const concurrency = Number(concurrencyArg ?? '100');
const expected = Number(expectedArg ?? '0');
const rate = Number(rateArg ?? '0');
const token = process.env.WHATSAPP_ACCESS_TOKEN ?? 'sandbox-token';
const template = { name: process.env.BENCH_TEMPLATE ?? 'order_update', language: process.env.BENCH_LANGUAGE ?? 'en_US' };
const endpoint = `${apiUrl}/v23.0/${phoneNumberId}/messages`;
const agent = new Agent({ connections: concurrency, keepAliveTimeout: 30_000 });

interface JobData {
  campaignId: string;
  row: number;
  to: string;
  values: string[];
}

// The same request body the product sends for a POSITIONAL template (reference §1.3).
const processor = async (job: Job<JobData>): Promise<void> => {
  const { campaignId, row, to, values } = job.data;
  const response = await request(endpoint, {
    method: 'POST',
    dispatcher: agent,
    headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
    body: JSON.stringify({
      messaging_product: 'whatsapp',
      recipient_type: 'individual',
      to,
      type: 'template',
      biz_opaque_callback_data: `${campaignId}/${row}`,
      template: {
        name: template.name,
        language: { code: template.language },
        components: [{ type: 'body', parameters: values.map((text) => ({ type: 'text', text })) }],
      },
    }),
  });
  const text = await response.body.text();
  if (response.statusCode !== 200) throw new Error(`HTTP ${response.statusCode}: ${text}`);
};

const connection = new Redis(process.env.REDIS_URL ?? 'redis://127.0.0.1:6379', { maxRetriesPerRequest: null });
const worker = new Worker<JobData>(queueName, processor, {
  connection,
  prefix,
  concurrency,
  ...(rate > 0 ? { limiter: { max: rate, duration: 1000 } } : {}),
});
worker.on('error', (error) => console.error(error));
// For benchmarks that start several: every process is connected before the clock starts.
void worker.waitUntilReady().then(() => console.log(JSON.stringify({ msg: 'ready' })));
let completed = 0;
let failed = 0;
worker.on('failed', () => failed++);
worker.on('completed', () => {
  if (++completed === expected) console.log(JSON.stringify({ msg: 'drained', completed, failed }));
});

let closing = false;
const stop = () => {
  if (closing) return;
  closing = true;
  void (async () => {
    await worker.close();
    await agent.close();
    await connection.quit();
    console.log(JSON.stringify({ msg: 'closed', completed, failed }));
  })();
};
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
