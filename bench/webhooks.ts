import { startServeChild } from './support/serve.js';
import { createHmac } from 'node:crypto';
import type { Redis } from 'ioredis';
import { RedisLedger } from '../src/redis/ledger/redis-ledger.js';
import { stopChild, type Child } from './support/children.js';
import { figure, type SectionResult } from './support/figures.js';
import { PHONE_NUMBER_ID, productEnv } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import { median } from './support/stats.js';
import { statusWebhookBody } from './support/status-webhook.js';

/**
 * Webhooks: signed status webhooks (sent, delivered, read: Meta's three per message) posted
 * to `campaign serve` as fast as 16 concurrent senders can, 100 statuses per POST, for the
 * rows of a campaign already sent. Measured: statuses applied per second (first POST → every
 * row read in the ledger), the p99 time to the 200 answer, and the lag from the last answer
 * to the last status applied. The targets on a 2-core machine: ≥ 3,000 events/s,
 * p99 answer < 100 ms, p99 lag < 1 s.
 */
export const WEBHOOK_ROWS = 10_000;
/**
 * Statuses per POST (Meta batches up to 1,000 but does not promise to; one per POST is the
 * worst case), and whether badly signed POSTs flood the service at the same time (they must
 * not slow the good ones: they are refused before their body is read).
 */
const MODES = [
  { perPost: 100, flood: false },
  { perPost: 1, flood: false },
  { perPost: 1, flood: true },
] as const;
/** Senders of badly signed POSTs in the flood mode, beside the CONCURRENCY good ones. */
const FLOOD_SENDERS = 8;
const CONCURRENCY = 16;
const SECRET = 'bench-app-secret';

interface WebhookRun {
  eventsPerSecond: number;
  p99AnswerMs: number;
  medianAnswerMs: number;
  tailLagMs: number;
  posts: number;
  /** Badly signed POSTs answered 401 during the run (flood mode). */
  badPosts: number;
}

export async function benchWebhooks(options: { runs: number; redis: Redis; rows?: number }): Promise<SectionResult> {
  const rows = options.rows ?? WEBHOOK_ROWS;
  const results = [];
  let quiet: WebhookRun[] = [];
  for (const { perPost, flood } of MODES) {
    const measured: WebhookRun[] = [];
    for (let i = 0; i < options.runs; i++) {
      const run = await once(options.redis, rows, perPost, flood);
      measured.push(run);
      console.error(
        `  webhooks run ${i + 1}/${options.runs}, ${perPost} per ` +
          `POST${flood ? `, ${run.badPosts} badly signed POSTs beside them` : ''}: ${Math.round(run.eventsPerSecond)} ` +
          `statuses/s applied; answer p50 ${run.medianAnswerMs.toFixed(1)} ms, p99 ${run.p99AnswerMs.toFixed(1)} ` +
          `ms; last answer → all applied ${Math.round(run.tailLagMs)} ms`,
      );
    }
    results.push({ perPost, measured, figures: flood ? [floodFigure(measured, quiet)] : figuresOf(rows, perPost, measured) });
    if (perPost === 1 && !flood) quiet = measured;
  }
  return {
    section: 'webhooks',
    figures: results.flatMap((r) => r.figures),
    runs: results.flatMap((r) => r.measured.map((m) => ({ perPost: r.perPost, ...m }))),
    notes: results.map(
      (r) =>
        `webhooks, ${r.perPost} per ` +
        `POST${r.measured[0]?.badPosts ? ` with a flood (${r.measured.map((m) => m.badPosts).join(', ')} bad POSTs per run)` : ''}: ` +
        `answer p50 per run [${r.measured.map((m) => m.medianAnswerMs.toFixed(1)).join(', ')}] ` +
        `ms; POSTs per run ${r.measured[0]?.posts ?? 0}`,
    ),
    method: [
      `webhooks: per run a fresh QUEUE_PREFIX with a campaign of ${rows} rows recorded as sent (message ` +
        `IDs w1…w${rows}, written through the ledger before the clock starts); ` +
        `\`campaign serve --port 0\` as a child process (its consumer applies what it stores); then ${rows * 3} ` +
        `statuses (sent, delivered, read per row, shuffled) in POSTs of 100 or 1, ` +
        `each signed with the app secret, from ${CONCURRENCY} concurrent senders in this process. Rate = ` +
        `statuses / (first POST sent → the ledger counts every row read, polled every 20 ms); ` +
        "answer = POST sent → 200 received; lag = last 200 → every row read (an upper bound of the last status's lag). " +
        `Flood: the 1-per-POST run again while ${FLOOD_SENDERS} more senders post 3 KB bodies with a wrong signature ` +
        `(each answered 401) until the good ones are done; judged beside the same run without them.`,
    ],
  };
}

/** The good POSTs' p99 answer with the flood, beside the same without it. */
function floodFigure(flooded: readonly WebhookRun[], quiet: readonly WebhookRun[]) {
  return figure({
    label: 'POST of 1 beside a flood of badly signed POSTs: time to the 200, p99',
    unit: 'ms',
    ours: flooded.map((r) => r.p99AnswerMs),
    baseline: quiet.map((r) => r.p99AnswerMs),
    baselineLabel: 'same, no flood',
    judgedOn: 'worst run',
    target: '< 100 ms',
    check: (value) => (value < 100 ? [] : ['>= 100 ms']),
    digits: 1,
  });
}

function figuresOf(rows: number, perPost: number, measured: readonly WebhookRun[]) {
  const none: number[] = [];
  return [
    figure({
      label: `status webhooks applied (${(rows * 3).toLocaleString('en-US')}, ${perPost} per POST)`,
      unit: 'statuses/s',
      ours: measured.map((r) => r.eventsPerSecond),
      baseline: none,
      baselineLabel: 'target only',
      judgedOn: 'median',
      target: '>= 3,000 statuses/s',
      check: (value) => (value >= 3000 ? [] : ['< 3,000/s']),
    }),
    figure({
      label: `webhook POST of ${perPost}: time to the 200, p99`,
      unit: 'ms',
      ours: measured.map((r) => r.p99AnswerMs),
      baseline: none,
      baselineLabel: 'target only',
      judgedOn: 'worst run',
      target: '< 100 ms',
      check: (value) => (value < 100 ? [] : ['>= 100 ms']),
      digits: 1,
    }),
    figure({
      label: `${perPost} per POST: last 200 → last status applied`,
      unit: 'ms',
      ours: measured.map((r) => r.tailLagMs),
      baseline: none,
      baselineLabel: 'target only',
      judgedOn: 'worst run',
      target: '< 1,000 ms',
      check: (value) => (value < 1000 ? [] : ['>= 1 s']),
    }),
  ];
}

async function once(redis: Redis, rows: number, perPost: number, flood: boolean): Promise<WebhookRun> {
  const prefix = freshPrefix('webhooks');
  const ledger = new RedisLedger(redis, prefix);
  const campaignId = 'bench-wh';
  let serve: Child | undefined;
  try {
    await sentCampaign(ledger, campaignId, rows);
    const service = await startServeChild(
      productEnv(prefix, { WHATSAPP_APP_SECRET: SECRET, WEBHOOK_VERIFY_TOKEN: 'bench-token', LOG_LEVEL: 'warn' }),
    );
    serve = service.child;
    const url = `${service.url}/webhook`;
    const bodies = postsOf(rows, perPost);
    const answers: number[] = [];
    let next = 0;
    let lastAnswer = 0;
    const started = performance.now();
    const sender = async () => {
      while (next < bodies.length) {
        const body = bodies[next++] ?? '';
        const t0 = performance.now();
        const response = await fetch(url, {
          method: 'POST',
          headers: {
            'content-type': 'application/json',
            'x-hub-signature-256': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`,
          },
          body,
        });
        await response.arrayBuffer();
        if (response.status !== 200) throw new Error(`campaign serve answered ${response.status}`);
        lastAnswer = performance.now();
        answers.push(lastAnswer - t0);
      }
    };
    // Badly signed POSTs (a wrong signature over a 3 KB body) until the good ones are done.
    let flooding = flood;
    let badPosts = 0;
    const junk = JSON.stringify({ object: 'whatsapp_business_account', entry: [], padding: 'x'.repeat(3000) });
    const badSender = async () => {
      while (flooding) {
        const response = await fetch(url, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-hub-signature-256': `sha256=${'0'.repeat(64)}` },
          body: junk,
        });
        await response.arrayBuffer();
        if (response.status !== 401) throw new Error(`a badly signed POST was answered ${response.status}, not 401`);
        badPosts++;
      }
    };
    const bad = flood ? Array.from({ length: FLOOD_SENDERS }, badSender) : [];
    await Promise.all(Array.from({ length: CONCURRENCY }, sender));
    flooding = false;
    await Promise.all(bad);
    const deadline = Date.now() + 120_000;
    while (((await ledger.status(campaignId))?.counts.read ?? 0) < rows) {
      if (Date.now() > deadline) throw new Error('the statuses were not all applied within 2 minutes');
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    const applied = performance.now();
    answers.sort((a, b) => a - b);
    return {
      eventsPerSecond: (rows * 3) / ((applied - started) / 1000),
      p99AnswerMs: answers[Math.min(answers.length - 1, Math.floor(answers.length * 0.99))] ?? Number.NaN,
      medianAnswerMs: median(answers),
      tailLagMs: applied - lastAnswer,
      posts: bodies.length,
      badPosts,
    };
  } finally {
    if (serve !== undefined) await stopChild(serve);
    await deletePrefix(redis, prefix);
  }
}

/** A campaign whose rows 1..n are sent with message IDs w1..wn (the ledger's own scripts, before the clock). */
async function sentCampaign(ledger: RedisLedger, id: string, n: number): Promise<void> {
  await ledger.createCampaign({
    id,
    createdAt: Date.now(),
    phoneNumberId: PHONE_NUMBER_ID,
    plan: { name: 'order_update', language: 'en_US', parameterFormat: 'POSITIONAL', slots: [], bodyText: 'Hi' },
    source: { file: 'bench.csv', phoneColumn: 'phone', fixWhitespace: false },
  });
  for (let from = 1; from <= n; from += 1000) {
    const chunk = Array.from({ length: Math.min(1000, n - from + 1) }, (_, i) => from + i);
    await ledger.recordIngested(
      id,
      PHONE_NUMBER_ID,
      chunk.map((row) => ({
        row,
        phone: `+4915${String(100000000 + row)}`,
        status: 'queued' as const,
        message: { values: [], headerLink: undefined, fingerprint: `fp${row}` },
      })),
    );
  }
  await ledger.finishIngest(id);
  for (;;) {
    const { jobs } = await ledger.feed(PHONE_NUMBER_ID, { windowSize: 5000, minBatch: 1, refreshAfterMs: 3_600_000, refreshMost: 0 });
    if (jobs.length === 0) break;
    await Promise.all(jobs.map((job) => ledger.claim(job, PHONE_NUMBER_ID)));
    await Promise.all(jobs.map((job) => ledger.settle(job, { status: 'sent', wamid: `w${job.row}` }, PHONE_NUMBER_ID)));
  }
}

/** Three statuses per row, shuffled (Meta does not keep order), `perPost` to a POST. */
function postsOf(rows: number, perPost: number): string[] {
  const now = Math.floor(Date.now() / 1000);
  const items: object[] = [];
  for (let row = 1; row <= rows; row++) {
    for (const [status, offset] of [
      ['sent', 0],
      ['delivered', 1],
      ['read', 2],
    ] as const) {
      items.push({ id: `w${row}`, status, timestamp: String(now + offset), recipient_id: `4915${100000000 + row}` });
    }
  }
  let seed = 42;
  for (let i = items.length - 1; i > 0; i--) {
    seed = (seed * 1103515245 + 12345) % 2147483648;
    const j = seed % (i + 1);
    [items[i], items[j]] = [items[j] as object, items[i] as object];
  }
  const bodies: string[] = [];
  for (let i = 0; i < items.length; i += perPost) {
    bodies.push(statusWebhookBody(PHONE_NUMBER_ID, items.slice(i, i + perPost)));
  }
  return bodies;
}
