import { startServeChild } from './support/serve.js';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import type { Redis } from 'ioredis';
import { runToExit, startChild, stopChild, waitForLine, type Child } from './support/children.js';
import { coreShare, cpuSeconds, machineBusySeconds, speedProbeMs } from './support/cpu.js';
import { startCpuTimeline, steadyPart, type CpuSample, type SteadyPart } from './support/cpu-timeline.js';
import { ensureCsv } from './support/data.js';
import { figure, type Figure, type SectionResult } from './support/figures.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, benchScriptArgs, campaignSend, productEnv } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import { startSandboxChild, type SandboxChild } from './support/sandbox.js';
import { medianOf, ratePerSecond } from './support/stats.js';
import { pct } from './ingest.js';
import { campaignLedgerKeys } from '../src/redis/ledger/ledger-keys.js';
import { runOrder } from './support/run-order.js';

/**
 * (b) Drain: 20,000 queued rows sent to the sandbox with the limiter off (SEND_RATE=0), by
 * `campaign worker` against the bare BullMQ + undici worker (bench/bare-worker.ts), same
 * sandbox, same concurrency. Loading the rows is setup and not timed (ours: `campaign send`
 * puts them in the ledger's backlog, and the worker's feeder writes them to BullMQ while it
 * drains, inside the timing; bare: bench/bare-ingest.ts writes every job
 * up front). The figure is messages/s as
 * the sandbox saw them: accepted count over the span from the first to the last accepted
 * message (start-up of either worker is not in it). The wall time from spawn to completion is
 * kept beside it, with CPU shares of worker, Redis and sandbox over that interval.
 */
export const DRAIN_ROWS = 20_000;
export const DRAIN_CONCURRENCY = 100;
/**
 * One untimed drain of this many rows per side before the runs: the sandbox (fastify, JIT),
 * Redis and tsx's transform cache start cold, and without it the first measured run (ours,
 * by the run order) paid for warming them — 2.2–2.4k msg/s against 3.3–3.7k later.
 */
export const WARMUP_ROWS = 5_000;

/**
 * The third side: ours with webhooks flowing. A `campaign serve` child takes the
 * status webhooks (sent, delivered, read for half: about 2.5 per message) that a sandbox child
 * of its own posts for every accepted message, and applies them to the rows while the worker
 * drains: the same machine, the same Redis.
 */
type Side = 'ours' | 'bare' | 'webhooks' | 'bare-webhooks' | 'scraped';
/**
 * The bare worker while the same status webhooks flow: its sandbox posts them (Meta's work,
 * which on this machine shares the two cores) to bench/null-receiver.ts, which answers 200
 * and applies nothing. Our webhooks side is judged against it: the difference is then what
 * taking in and applying the webhooks costs us, not what simulating Meta costs the machine.
 */
/** The scraped side: ours while a scraper GETs the service's /metrics this often. */
const SCRAPE_EVERY_MS = 1000;
const WEBHOOK_SECRET = 'bench-drain-app-secret';

interface DrainRun {
  side: Side;
  accepted: number;
  messagesPerSecond: number;
  /** Spawn to "campaign completed" (ours) or "drained" (bare), start-up included. */
  wallMs: number;
  workerCores: number | undefined;
  redisCores: number | undefined;
  sandboxCores: number | undefined;
  /** Whole machine, in cores (of all of them): includes everyone else's work on this shared machine. */
  machineCores: number | undefined;
  /** From 1 s after the first accepted message to 0.5 s before the last: msg/s and each process's CPU a message. */
  steady: SteadyPart | undefined;
  /** speedProbeMs() just before the run: the machine's speed at the time. */
  probeMs: number;
  /** Webhooks side: the service's CPU, and rows Meta had reported delivered when the campaign completed. */
  serveCores?: number | undefined;
  deliveredAtCompletion?: number;
  /** Scraped side: GET /metrics answered during the run. */
  scrapes?: number;
}

/** The children and timer of one run, stopped whatever happens. */
interface RunChildren {
  worker?: Child;
  serve?: Child;
  own?: SandboxChild;
  scraper?: NodeJS.Timeout;
}

interface DrainRig {
  redis: Redis;
  redisPid: number | undefined;
  sandbox: SandboxChild;
  files: Map<number, string>;
}

const QUEUE_NAME = `send-${PHONE_NUMBER_ID}`;

const isJsonLine = (line: string, test: (o: Record<string, unknown>) => boolean): boolean => {
  if (!line.startsWith('{')) return false;
  try {
    return test(JSON.parse(line) as Record<string, unknown>);
  } catch {
    return false;
  }
};

export async function benchDrain(options: {
  runs: number;
  redis: Redis;
  redisPid: number | undefined;
  sandbox: SandboxChild;
}): Promise<SectionResult> {
  const files = new Map<number, string>([
    [DRAIN_ROWS, await ensureCsv(DRAIN_ROWS)],
    [WARMUP_ROWS, await ensureCsv(WARMUP_ROWS)],
  ]);
  const rig: DrainRig = { ...options, files };
  const measured: DrainRun[] = [];

  const sides: Side[] = ['ours', 'bare', 'webhooks', 'bare-webhooks', 'scraped'];
  for (const side of sides) {
    const warm = await drainOnce(rig, side, WARMUP_ROWS);
    console.error(`  drain warm-up ${side} (${WARMUP_ROWS} rows, not counted): ${Math.round(warm.messagesPerSecond)} msg/s`);
  }
  for (let i = 0; i < options.runs; i++) {
    // Each run starts, ends and pairs the sides another way: no side always runs first or last, or after the same side.
    const order = runOrder(sides, i);
    for (const side of order) {
      const run = await drainOnce(rig, side);
      measured.push(run);
      console.error(
        `  drain run ${i + 1}/${options.runs} ${side}: ${Math.round(run.messagesPerSecond)} ` +
          `msg/s (wall ${(run.wallMs / 1000).toFixed(1)} s); ` +
          `CPU: worker ${pct(run.workerCores)}, redis ${pct(run.redisCores)}, sandbox ${pct(run.sandboxCores)} of a core; ` +
          `whole machine ${pct(run.machineCores)} (of ${cpus().length * 100}%)` +
          (run.side === 'webhooks' ? `; serve ${pct(run.serveCores)}; ${run.deliveredAtCompletion ?? 0} rows delivered by completion` : ''),
      );
    }
  }
  return drainResult(measured);
}

/** Starts the side's worker on a filled queue; resolves when every row is answered. */
async function drainOnce(rig: DrainRig, side: Side, rows = DRAIN_ROWS): Promise<DrainRun> {
  const file = rig.files.get(rows) ?? (await ensureCsv(rows));
  const prefix = freshPrefix(`drain-${side}`);
  const children: RunChildren = {};
  try {
    const { campaignId, done } = await fillQueue(side, file, rows, prefix);
    const serviceUrl = await startWebhookSide(side, prefix, children);
    return await measureDrain(rig, { side, rows, prefix, campaignId, serviceUrl, done }, children);
  } finally {
    clearInterval(children.scraper);
    if (children.worker !== undefined) await stopChild(children.worker);
    await children.own?.stop();
    if (children.serve !== undefined) await stopChild(children.serve);
    await deletePrefix(rig.redis, prefix);
  }
}

/** Loads the rows, untimed: ours into the ledger's backlog with `campaign send`, bare as one BullMQ job each. */
async function fillQueue(
  side: Side,
  file: string,
  rows: number,
  prefix: string,
): Promise<{ campaignId: string; done: (line: string) => boolean }> {
  if (side !== 'bare' && side !== 'bare-webhooks') {
    const summary = await campaignSend(file, prefix);
    if (summary.queued !== rows) throw new Error(`campaign send queued ${summary.queued} of ${rows}`);
    const done = (line: string) => isJsonLine(line, (o) => o.msg === 'campaign completed' && o.campaignId === summary.id);
    return { campaignId: summary.id, done };
  }
  const bareCampaignId = `bare${randomBytes(3).toString('hex')}`;
  await runToExit(
    startChild(
      'bare-ingest',
      process.execPath,
      benchScriptArgs('bare-ingest.ts', [file, prefix, QUEUE_NAME, bareCampaignId]),
      productEnv(prefix),
      ROOT,
    ),
    300_000,
  );
  return { campaignId: '', done: (line) => isJsonLine(line, (o) => o.msg === 'drained') };
}

/**
 * Webhooks and scraped sides: `campaign serve` on the run's prefix (webhooks: with a sandbox of its own
 * posting to it); bare-webhooks: the null receiver and its sandbox. Returns the service's URL ('' if none).
 */
async function startWebhookSide(side: Side, prefix: string, children: RunChildren): Promise<string> {
  let serviceUrl = '';
  if (side === 'webhooks' || side === 'scraped') {
    const serve = await startServeChild(
      productEnv(prefix, { WHATSAPP_APP_SECRET: WEBHOOK_SECRET, WEBHOOK_VERIFY_TOKEN: 'bench-verify', LOG_LEVEL: 'warn' }),
    );
    children.serve = serve.child;
    const url = serve.url;
    serviceUrl = url;
    if (side === 'webhooks') children.own = await startSandboxChild({ url: `${url}/webhook`, appSecret: WEBHOOK_SECRET });
  }
  if (side === 'bare-webhooks') {
    children.serve = startChild('null-receiver', process.execPath, benchScriptArgs('null-receiver.ts', []), productEnv(prefix), ROOT);
    const { line } = await waitForLine(children.serve, (l) => /null receiver listening on http:\/\//.test(l), 60_000);
    const url = /listening on (http:\/\/[^\s:]+:\d+)/.exec(line)?.[1];
    if (url === undefined) throw new Error(`cannot read the null receiver's URL from: ${line}`);
    children.own = await startSandboxChild({ url: `${url}/webhook`, appSecret: WEBHOOK_SECRET });
  }
  return serviceUrl;
}

/** Runs the side's worker until every row is answered: msg/s as the sandbox saw them, wall time and CPU shares. */
async function measureDrain(
  rig: DrainRig,
  run: { side: Side; rows: number; prefix: string; campaignId: string; serviceUrl: string; done: (line: string) => boolean },
  children: RunChildren,
): Promise<DrainRun> {
  const { redis, redisPid, sandbox } = rig;
  const { side, rows, prefix, campaignId, serviceUrl, done } = run;
  const { serve, own } = children;
  let scrapes = 0;
  const api = own ?? sandbox;
  await api.reset();
  const env = productEnv(prefix, { WHATSAPP_API_URL: api.url, SEND_RATE: '0', SEND_CONCURRENCY: String(DRAIN_CONCURRENCY) });
  const probeMs = speedProbeMs();
  const redisBefore = cpuSeconds(redisPid);
  const sandboxBefore = cpuSeconds(api.child.pid);
  const serveBefore = serve === undefined ? undefined : cpuSeconds(serve.pid);
  const machineBefore = machineBusySeconds();
  const worker = (children.worker =
    side !== 'bare' && side !== 'bare-webhooks'
      ? startChild('campaign worker', process.execPath, [CAMPAIGN_BIN, 'worker'], env, ROOT)
      : startChild(
          'bare-worker',
          process.execPath,
          benchScriptArgs('bare-worker.ts', [prefix, QUEUE_NAME, api.url, PHONE_NUMBER_ID, String(DRAIN_CONCURRENCY), String(rows)]),
          env,
          ROOT,
        ));
  const timeline = startCpuTimeline({ worker: worker.pid, redis: redisPid, sandbox: api.child.pid });
  if (side === 'scraped') {
    children.scraper = setInterval(() => {
      void fetch(`${serviceUrl}/metrics`)
        .then(async (response) => {
          await response.text();
          if (response.status === 200) scrapes++;
        })
        .catch(() => undefined);
    }, SCRAPE_EVERY_MS);
  }
  let samples: CpuSample[] = [];
  const { at } = await waitForLine(worker, done, 300_000).finally(() => (samples = timeline.stop()));
  clearInterval(children.scraper);
  const wallMs = at - worker.startedAt;
  const workerCores = coreShare(0, cpuSeconds(worker.pid), wallMs);
  const redisCores = coreShare(redisBefore, cpuSeconds(redisPid), wallMs);
  const sandboxCores = coreShare(sandboxBefore, cpuSeconds(api.child.pid), wallMs);
  const machineCores = coreShare(machineBefore, machineBusySeconds(), wallMs);
  const serveCores = serve === undefined ? undefined : coreShare(serveBefore ?? 0, cpuSeconds(serve.pid), wallMs);
  const delivered =
    side === 'webhooks'
      ? Number((await redis.hget(campaignLedgerKeys(prefix, PHONE_NUMBER_ID, campaignId).campaign, 'n:delivered')) ?? 0)
      : undefined;
  await stopChild(worker);
  const times = await api.acceptedTimes();
  if (times.length !== rows) throw new Error(`${side}: the sandbox accepted ${times.length} of ${rows} messages`);
  return {
    side,
    accepted: times.length,
    messagesPerSecond: ratePerSecond(times),
    steady: steadyPart(samples, times),
    wallMs,
    workerCores,
    redisCores,
    sandboxCores,
    machineCores,
    probeMs,
    ...(delivered === undefined ? {} : { serveCores, deliveredAtCompletion: delivered }),
    ...(side === 'scraped' ? { serveCores, scrapes } : {}),
  };
}

/** The drain section's table lines, notes and method from its measured runs. */
function drainResult(measured: DrainRun[]): SectionResult {
  const ours = measured.filter((r) => r.side === 'ours');
  const bare = measured.filter((r) => r.side === 'bare');
  const flowing = measured.filter((r) => r.side === 'webhooks');
  const scraped = measured.filter((r) => r.side === 'scraped');
  const bareFlowing = measured.filter((r) => r.side === 'bare-webhooks');
  const cpu = (runs: DrainRun[]) =>
    `worker ${pct(medianOf(runs, (r) => r.workerCores))}, redis ${pct(medianOf(runs, (r) => r.redisCores))}, ` +
    `sandbox ${pct(medianOf(runs, (r) => r.sandboxCores))}, whole machine ${pct(medianOf(runs, (r) => r.machineCores))}; ` +
    `wall ${(medianOf(runs, (r) => r.wallMs) / 1000).toFixed(2)} s`;
  const steady = (runs: DrainRun[]) => {
    const whole = (value: number) => (Number.isFinite(value) ? String(Math.round(value)) : 'n/a');
    const part = (name: string) => `${name} ${whole(medianOf(runs, (r) => r.steady?.microsPerMessage[name]))} µs`;
    const machine = pct(medianOf(runs, (r) => r.steady?.cores.machine));
    const rate = whole(medianOf(runs, (r) => r.steady?.messagesPerSecond));
    const waiting = (name: string) => `${name} ${pct(medianOf(runs, (r) => r.steady?.waiting[name]))}`;
    const names = ['worker', 'redis', 'sandbox'];
    return `${rate} msg/s, ${names.map(part).join(', ')}, machine ${machine}; waiting for a core ${names.map(waiting).join(', ')}`;
  };
  return {
    section: 'drain',
    figures: drainFigures({ ours, bare, flowing, scraped, bareFlowing }),
    runs: measured.map((r) => ({ ...r })),
    notes: [
      `drain: machine speed probe before each run (ms for a fixed hash loop, lower = faster): ` +
        `ours [${ours.map((r) => Math.round(r.probeMs)).join(', ')}], bare [${bare.map((r) => Math.round(r.probeMs)).join(', ')}]`,
      `drain CPU, median share of one core from worker spawn to completion (worker start-up ` +
        `included): ours ${cpu(ours)} | bare ${cpu(bare)} | ` +
        `webhooks flowing ${cpu(flowing)}, serve ${pct(medianOf(flowing, (r) => r.serveCores))}`,
      `drain's steady part (from 1 s after the first accepted message to 0.5 s before the last; CPU a message of ` +
        `each process, medians; waiting: the share of it each main thread could run but had no core): ` +
        `ours ${steady(ours)} | bare ${steady(bare)}`,
      `drain with /metrics scraped: scrapes answered per run [${scraped.map((r) => r.scrapes ?? 0).join(', ')}]; ` +
        `serve CPU ${pct(medianOf(scraped, (r) => r.serveCores))}`,
      `drain with webhooks flowing: rows already reported delivered when the campaign completed, per run: ` +
        `[${flowing.map((r) => r.deliveredAtCompletion ?? 0).join(', ')}] of ${DRAIN_ROWS}`,
    ],
    method: drainMethod(),
  };
}

function drainFigures(sides: {
  ours: DrainRun[];
  bare: DrainRun[];
  flowing: DrainRun[];
  scraped: DrainRun[];
  bareFlowing: DrainRun[];
}): Figure[] {
  const { ours, bare, flowing, scraped, bareFlowing } = sides;
  return [
    figure({
      label: `drain ${DRAIN_ROWS.toLocaleString('en-US')} rows, no limiter`,
      unit: 'msg/s',
      ours: ours.map((r) => r.messagesPerSecond),
      baseline: bare.map((r) => r.messagesPerSecond),
      baselineLabel: 'bare BullMQ+undici worker',
      judgedOn: 'median',
      target: '>= 0.7x bare and >= 2,000 msg/s',
      check: (value, ratio) => [...(ratio >= 0.7 ? [] : ['< 0.7x bare']), ...(value >= 2000 ? [] : ['< 2,000 msg/s'])],
    }),
    figure({
      label: `drain ${DRAIN_ROWS.toLocaleString('en-US')} rows, webhooks flowing`,
      unit: 'msg/s',
      ours: flowing.map((r) => r.messagesPerSecond),
      baseline: bareFlowing.map((r) => r.messagesPerSecond),
      baselineLabel: 'bare worker, same webhooks posted to a receiver that applies nothing',
      judgedOn: 'median',
      target: '>= 0.7x bare',
      check: (_value, ratio) => (ratio >= 0.7 ? [] : ['< 0.7x bare']),
    }),
    figure({
      label: `drain ${DRAIN_ROWS.toLocaleString('en-US')} rows, webhooks flowing, against the bare worker without them`,
      unit: 'msg/s',
      ours: flowing.map((r) => r.messagesPerSecond),
      baseline: bare.map((r) => r.messagesPerSecond),
      baselineLabel: 'bare BullMQ+undici worker, no webhooks',
      judgedOn: 'median',
      target: 'informational: includes the simulated Meta posting webhooks on the same 2 cores',
      informational: true,
      check: () => [],
    }),
    figure({
      label: `drain ${DRAIN_ROWS.toLocaleString('en-US')} rows, /metrics scraped every ${SCRAPE_EVERY_MS / 1000} s`,
      unit: 'msg/s',
      ours: scraped.map((r) => r.messagesPerSecond),
      baseline: ours.map((r) => r.messagesPerSecond),
      baselineLabel: 'ours, not scraped',
      judgedOn: 'median',
      target: '>= 0.97x not scraped (metrics cost <= 3%)',
      check: (_value, ratio) => (ratio >= 0.97 ? [] : ['< 0.97x not scraped']),
    }),
  ];
}

function drainMethod(): string[] {
  return [
    `drain: after one untimed warm-up drain of ${WARMUP_ROWS} rows per side, ${DRAIN_ROWS} rows loaded first, ` +
      `not timed (ours: \`campaign send\` into the ledger's backlog, which the worker feeds to BullMQ as it drains, ` +
      `inside the timing; bare: every job written by bench/bare-ingest.ts); then \`campaign worker\` ` +
      `(SEND_RATE=0, SEND_CONCURRENCY=${DRAIN_CONCURRENCY}, LOG_LEVEL=info) vs bench/bare-worker.ts ` +
      `(BullMQ Worker, concurrency ${DRAIN_CONCURRENCY}, ` +
      `no limiter, processor = one undici POST of the same template body, nothing else), both as child processes against one ` +
      `\`campaign sandbox --mps 0\` child, reset between runs; the sides' order changes each run (first, last and who follows whom). ` +
      `msg/s = accepted / (last − first receivedAt) in the sandbox; ` +
      `wall = spawn → "campaign completed" log line (ours, ledger accounting) or → all jobs completed (bare).`,
    `drain, webhooks flowing: as ours, plus a \`campaign serve\` child on the run's prefix and a sandbox child of its own started with ` +
      `\`--webhook-url\` (sent 0.1 s, delivered 0.5 s, read 2 s after each accepted message, ` +
      `for half of them), both started before the timing; ` +
      `the service applies the statuses to the rows while the worker drains.`,
    `drain, bare with webhooks flowing: as bare, with a sandbox child of its own posting the same status ` +
      `webhooks to bench/null-receiver.ts (answers 200, applies nothing); ` +
      `the webhooks-flowing figure is judged against it, so the simulated Meta's own work weighs on both sides.`,
    `drain, /metrics scraped: as ours, plus a \`campaign serve\` child on the run's prefix whose ` +
      `/metrics is fetched every ${SCRAPE_EVERY_MS} ms while the worker drains ` +
      `(the workers' own metric flushes, once a second, are in every side of ours).`,
  ];
}
