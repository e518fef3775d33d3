/**
 * The time of one GET /metrics with 50 campaigns and 1,000,000 queued rows.
 *
 *   node --import tsx bench/metrics-scrape.ts [--campaigns 50] [--rows 1000000] [--numbers 5] [--scrapes 20]
 *
 * On a fresh QUEUE_PREFIX: the campaigns are recorded straight into the ledger (RedisLedger,
 * recordIngested in chunks of 1,000 queued rows, as `campaign send` records them), spread over
 * a few phone numbers, each number's window fed into BullMQ; then `campaign serve` (in this
 * process, port 0) is scraped over HTTP, once to warm up and then `--scrapes` times. Prints the
 * median, min and max; deletes the prefix at the end. A scrape reads campaign hashes, never
 * rows, so the figure should not depend on --rows.
 */
import { readFileSync } from 'node:fs';
import { parseArgs } from 'node:util';
import type { Redis } from 'ioredis';
import type { CampaignDefinition } from '../src/campaigns/campaign.js';
import type { IngestedRow } from '../src/campaigns/ledger.js';
import { planSend } from '../src/campaigns/send-plan.js';
import { silentLogger } from '../src/logging/logger.js';
import { BullSendQueue } from '../src/queue/send-queue.js';
import { RedisLedger } from '../src/redis/ledger/redis-ledger.js';
import { requirementsOf } from '../src/templates/template-requirements.js';
import { templateListSchema } from '../src/templates/template-schema.js';
import { startService } from '../workers/serve.js';
import { REDIS_URL, deletePrefix, freshPrefix, openRedis } from './support/redis.js';
import { median } from './support/stats.js';
import { CLI_FIELD_NAMES } from '../src/campaigns/spec/field-names.js';

const { values } = parseArgs({
  options: {
    campaigns: { type: 'string', default: '50' },
    rows: { type: 'string', default: '1000000' },
    numbers: { type: 'string', default: '5' },
    scrapes: { type: 'string', default: '20' },
  },
});
const CAMPAIGNS = Number(values.campaigns);
const ROWS = Number(values.rows);
const NUMBERS = Number(values.numbers);
const SCRAPES = Number(values.scrapes);
const CHUNK = 1000;
/** Chunks recorded at once (different campaigns: each campaign's rows go in order). */
const IN_FLIGHT = 4;

const samples = templateListSchema.parse(JSON.parse(readFileSync(new URL('../samples/templates.json', import.meta.url), 'utf8'))).data;
const template = samples.find((t) => t.name === 'order_update' && t.language === 'en_US');
if (template === undefined) throw new Error('samples/templates.json lost order_update (en_US)');
const plan = planSend(
  requirementsOf(template),
  ['phone', 'first_name', 'order_id'],
  { params: ['first_name', 'order_id'] },
  CLI_FIELD_NAMES,
);

const numberOf = (c: number) => String(106540352200000 + (c % NUMBERS));
const phoneOf = (n: number) => `+49151${String(10_000_000 + n).padStart(8, '0')}`;

async function main(): Promise<void> {
  const redis = openRedis();
  const prefix = freshPrefix('metrics-scrape');
  const ledger = new RedisLedger(redis, prefix);
  try {
    const recorded = await recordCampaigns(ledger);
    await fillWindows(redis, prefix, ledger);

    const service = await startService(
      { port: 0, host: '127.0.0.1' },
      { REDIS_URL, QUEUE_PREFIX: prefix, LOG_LEVEL: 'silent', WHATSAPP_APP_SECRET: 'bench', WEBHOOK_VERIFY_TOKEN: 'bench' },
      silentLogger(),
    );
    try {
      await measureScrapes(service.url, redis, recorded);
    } finally {
      await service.close();
    }
  } finally {
    await deletePrefix(redis, prefix);
    await redis.quit();
  }
}

/** CAMPAIGNS campaigns of queued rows over NUMBERS phone numbers, recorded in chunks; returns the rows recorded. */
async function recordCampaigns(ledger: RedisLedger): Promise<number> {
  const perCampaign = Math.ceil(ROWS / CAMPAIGNS);
  const started = Date.now();
  const ids: string[] = [];
  for (let c = 0; c < CAMPAIGNS; c++) {
    const definition: CampaignDefinition = {
      id: `bench${c}`,
      createdAt: Date.now(),
      phoneNumberId: numberOf(c),
      plan,
      source: { file: 'bench.csv', phoneColumn: 'phone', fixWhitespace: false },
    };
    await ledger.createCampaign(definition);
    ids.push(definition.id);
  }
  // Chunks of each campaign in order; IN_FLIGHT campaigns at a time.
  let recorded = 0;
  for (let c = 0; c < CAMPAIGNS; c += IN_FLIGHT) {
    await Promise.all(
      ids.slice(c, c + IN_FLIGHT).map(async (id, i) => {
        const phoneNumberId = numberOf(c + i);
        for (let first = 1; first <= perCampaign; first += CHUNK) {
          const rows: IngestedRow[] = [];
          for (let row = first; row < Math.min(first + CHUNK, perCampaign + 1); row++) {
            const n = (c + i) * perCampaign + row;
            rows.push({
              row,
              phone: phoneOf(n),
              status: 'queued',
              message: { values: [`Name${n}`, `A-${n}`], headerLink: undefined, fingerprint: `fp-${n}` },
            });
          }
          await ledger.recordIngested(id, phoneNumberId, rows);
          recorded += rows.length;
        }
        await ledger.finishIngest(id);
      }),
    );
    process.stderr.write(`\rrecorded ${recorded} rows`);
  }
  process.stderr.write(`\nrecorded ${recorded} rows in ${CAMPAIGNS} campaigns in ${((Date.now() - started) / 1000).toFixed(1)} s\n`);
  return recorded;
}

/** Each number's BullMQ window, as a worker's feeder would fill it (so the queue counts are not all zero). */
async function fillWindows(redis: Redis, prefix: string, ledger: RedisLedger): Promise<void> {
  for (let n = 0; n < NUMBERS; n++) {
    const phoneNumberId = numberOf(n);
    const fed = await ledger.feed(phoneNumberId, { windowSize: 200, minBatch: 1, refreshAfterMs: 60_000, refreshMost: 0 });
    const queue = new BullSendQueue({ connection: redis, prefix, phoneNumberId, attempts: 6, backoffMs: 1000, logger: silentLogger() });
    await queue.enqueue(fed.jobs);
    await queue.close();
  }
}

/** Times SCRAPES GET /metrics beside as many GET /healthz and prints the figures as one JSON line. */
async function measureScrapes(serviceUrl: string, redis: Redis, recorded: number): Promise<void> {
  const scrapeMs = async (): Promise<{ ms: number; bytes: number; series: number }> => {
    const t = performance.now();
    const response = await fetch(`${serviceUrl}/metrics`);
    const body = await response.text();
    const ms = performance.now() - t;
    if (response.status !== 200) throw new Error(`GET /metrics answered ${response.status}: ${body}`);
    return { ms, bytes: body.length, series: body.split('\n').filter((l) => l.startsWith('cw_campaign_rows{')).length };
  };
  const warm = await scrapeMs();
  const times: number[] = [];
  for (let i = 0; i < SCRAPES; i++) times.push((await scrapeMs()).ms);
  // The bare baseline: the same HTTP round trip to the same service, answering from memory.
  const healthz: number[] = [];
  for (let i = 0; i < SCRAPES; i++) {
    const t = performance.now();
    await (await fetch(`${serviceUrl}/healthz`)).text();
    healthz.push(performance.now() - t);
  }
  const memory = /^used_memory_human:(\S+)/m.exec(await redis.info('memory'))?.[1] ?? '?';
  console.log(
    JSON.stringify({
      campaigns: CAMPAIGNS,
      queuedRows: recorded,
      numbers: NUMBERS,
      scrapes: SCRAPES,
      medianMs: Number(median(times).toFixed(1)),
      minMs: Number(Math.min(...times).toFixed(1)),
      maxMs: Number(Math.max(...times).toFixed(1)),
      healthzMedianMs: Number(median(healthz).toFixed(1)),
      firstScrapeMs: Number(warm.ms.toFixed(1)),
      bodyBytes: warm.bytes,
      campaignRowSeries: warm.series,
      redisUsedMemory: memory,
    }),
  );
}

await main();
