import { randomBytes } from 'node:crypto';
import { loadavg } from 'node:os';
import type { Redis } from 'ioredis';
import { runToExit, startChild, stopChild, waitForLine, type Child } from './support/children.js';
import { coreShare, cpuSeconds } from './support/cpu.js';
import { ensureCsv } from './support/data.js';
import { figure, type SectionResult } from './support/figures.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, benchScriptArgs, campaignSend, productEnv, sendArgs } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import type { SandboxChild } from './support/sandbox.js';
import { medianOf, ratePerSecond } from './support/stats.js';
import { pct } from './ingest.js';
import { runOrder } from './support/run-order.js';

/**
 * End to end and CPU per message: from the spawn of `campaign send` of a 20,000-row file (`--e2e-rows N`) to
 * the last request the sandbox accepted, with `campaign worker` already running and idle,
 * beside the bare pipeline over the same file (bench/bare-worker.ts running, then
 * bench/bare-ingest.ts: csv-parse + addBulk). The worker's CPU seconds (utime + stime of
 * its process) from the clock's start to its last answer, per 1,000 messages, beside the
 * bare worker's. And the drain alone (rows loaded untimed, then the worker started), the
 * figure the drain section also gives, so this section can be run on its own.
 */
export const E2E_ROWS = 20_000;
const WARMUP_ROWS = 5_000;
const CONCURRENCY = 100;
const QUEUE_NAME = `send-${PHONE_NUMBER_ID}`;

type Side = 'ours-e2e' | 'bare-e2e' | 'ours-drain' | 'bare-drain';
const SIDES: readonly Side[] = ['ours-e2e', 'bare-e2e', 'ours-drain', 'bare-drain'];

interface E2eRun {
  side: Side;
  rows: number;
  /** e2e sides: spawn of the ingest to the last accepted request. */
  endToEndMs?: number;
  /** Accepted count over first → last accepted. */
  messagesPerSecond: number;
  /** The worker's CPU seconds per 1,000 messages (e2e sides: from the clock's start, the worker idle and ready before). */
  cpuPerThousand: number;
  workerCores: number | undefined;
  redisCores: number | undefined;
  loadAverage: number;
}

interface E2eRig {
  redis: Redis;
  redisPid: number | undefined;
  sandbox: SandboxChild;
}

const jsonLine = (line: string, test: (o: Record<string, unknown>) => boolean): boolean => {
  if (!line.startsWith('{')) return false;
  try {
    return test(JSON.parse(line) as Record<string, unknown>);
  } catch {
    return false;
  }
};

export async function benchE2e(options: {
  runs: number;
  /** The campaign's rows (E2E_ROWS by default). */
  rows: number;
  redis: Redis;
  redisPid: number | undefined;
  sandbox: SandboxChild;
}): Promise<SectionResult> {
  const rig: E2eRig = options;
  for (const side of SIDES) {
    const warm = await runSide(rig, side, WARMUP_ROWS);
    console.error(`  e2e warm-up ${side} (${WARMUP_ROWS} rows, not counted): ${Math.round(warm.messagesPerSecond)} msg/s`);
  }
  const measured: E2eRun[] = [];
  for (let i = 0; i < options.runs; i++) {
    const order = runOrder(SIDES, i);
    for (const side of order) {
      const run = await runSide(rig, side, options.rows);
      measured.push(run);
      console.error(
        `  e2e run ${i + 1}/${options.runs} ${side}: ` +
          (run.endToEndMs === undefined ? '' : `end to end ${(run.endToEndMs / 1000).toFixed(2)} s, `) +
          `${Math.round(run.messagesPerSecond)} msg/s, worker ${run.cpuPerThousand.toFixed(3)} CPU s per 1,000; ` +
          `CPU: worker ${pct(run.workerCores)}, redis ${pct(run.redisCores)}; load ${run.loadAverage.toFixed(2)}`,
      );
    }
  }
  return e2eResult(measured, options.runs, options.rows);
}

function loadAverageNow(): number {
  return loadavg()[0] ?? Number.NaN;
}

async function runSide(rig: E2eRig, side: Side, rows: number): Promise<E2eRun> {
  const file = await ensureCsv(rows);
  const prefix = freshPrefix(side);
  const children: Child[] = [];
  try {
    await rig.sandbox.reset();
    return side.endsWith('e2e')
      ? await endToEnd(rig, side, file, rows, prefix, children)
      : await drain(rig, side, file, rows, prefix, children);
  } finally {
    for (const child of children.reverse()) await stopChild(child);
    await deletePrefix(rig.redis, prefix);
  }
}

function startWorker(
  rig: E2eRig,
  side: Side,
  prefix: string,
  rows: number,
  campaignIdOf?: () => string,
): { worker: Child; done: (l: string) => boolean } {
  const env = productEnv(prefix, { WHATSAPP_API_URL: rig.sandbox.url, SEND_RATE: '0', SEND_CONCURRENCY: String(CONCURRENCY) });
  if (side.startsWith('ours')) {
    const worker = startChild(
      'campaign worker',
      process.execPath,
      [CAMPAIGN_BIN, 'worker', '--phone-number-id', PHONE_NUMBER_ID],
      env,
      ROOT,
    );
    const done = (line: string) =>
      jsonLine(line, (o) => o.msg === 'campaign completed' && (campaignIdOf === undefined || o.campaignId === campaignIdOf()));
    return { worker, done };
  }
  const args = benchScriptArgs('bare-worker.ts', [prefix, QUEUE_NAME, rig.sandbox.url, PHONE_NUMBER_ID, String(CONCURRENCY), String(rows)]);
  const worker = startChild('bare-worker', process.execPath, args, env, ROOT);
  return { worker, done: (line) => jsonLine(line, (o) => o.msg === 'drained') };
}

function bareIngest(file: string, prefix: string): Child {
  const args = benchScriptArgs('bare-ingest.ts', [file, prefix, QUEUE_NAME, `bare${randomBytes(3).toString('hex')}`]);
  return startChild('bare-ingest', process.execPath, args, productEnv(prefix), ROOT);
}

/** The worker running and idle; the clock starts at the spawn of the ingest and stops at the last accepted request. */
async function endToEnd(rig: E2eRig, side: Side, file: string, rows: number, prefix: string, children: Child[]): Promise<E2eRun> {
  // One campaign in this prefix: its completion is the only one the worker can log.
  const { worker, done } = startWorker(rig, side, prefix, rows);
  children.push(worker);
  const ready = side === 'ours-e2e' ? /serving phone number/ : /"msg":"ready"/;
  await waitForLine(worker, (line) => ready.test(line), 60_000);
  const completion = waitForLine(worker, done, 600_000);
  completion.catch(() => undefined);
  const loadAverage = loadAverageNow();
  const cpuBefore = cpuSeconds(worker.pid);
  const redisBefore = cpuSeconds(rig.redisPid);
  const startedAt = Date.now();
  const started = performance.now();
  const ingest =
    side === 'ours-e2e'
      ? startChild('campaign send', process.execPath, sendArgs(file), productEnv(prefix), ROOT)
      : bareIngest(file, prefix);
  children.push(ingest);
  await runToExit(ingest, 300_000);
  const { at } = await completion;
  const cpu = (cpuSeconds(worker.pid) ?? Number.NaN) - (cpuBefore ?? Number.NaN);
  const wallMs = at - started;
  const times = await rig.sandbox.acceptedTimes();
  if (times.length !== rows) throw new Error(`${side}: the sandbox accepted ${times.length} of ${rows} messages`);
  return {
    side,
    rows,
    endToEndMs: (times[times.length - 1] ?? Number.NaN) - startedAt,
    messagesPerSecond: ratePerSecond(times),
    cpuPerThousand: (1000 * cpu) / rows,
    workerCores: cpu / (wallMs / 1000),
    redisCores: coreShare(redisBefore, cpuSeconds(rig.redisPid), wallMs),
    loadAverage,
  };
}

/** Rows loaded untimed (ours: into the ledger's backlog; bare: every job written), then the worker started. */
async function drain(rig: E2eRig, side: Side, file: string, rows: number, prefix: string, children: Child[]): Promise<E2eRun> {
  let campaignId: string | undefined;
  if (side === 'ours-drain') campaignId = (await campaignSend(file, prefix)).id;
  else await runToExit(bareIngest(file, prefix), 300_000);
  const loadAverage = loadAverageNow();
  const redisBefore = cpuSeconds(rig.redisPid);
  const { worker, done } = startWorker(rig, side, prefix, rows, () => campaignId ?? '');
  children.push(worker);
  const { at } = await waitForLine(worker, done, 600_000);
  const cpu = cpuSeconds(worker.pid) ?? Number.NaN;
  const wallMs = at - worker.startedAt;
  const times = await rig.sandbox.acceptedTimes();
  if (times.length !== rows) throw new Error(`${side}: the sandbox accepted ${times.length} of ${rows} messages`);
  return {
    side,
    rows,
    messagesPerSecond: ratePerSecond(times),
    cpuPerThousand: (1000 * cpu) / rows,
    workerCores: coreShare(0, cpu, wallMs),
    redisCores: coreShare(redisBefore, cpuSeconds(rig.redisPid), wallMs),
    loadAverage,
  };
}

function e2eResult(measured: E2eRun[], runs: number, campaignRows: number): SectionResult {
  const of = (side: Side) => measured.filter((r) => r.side === side);
  const [oursE2e, bareE2e, oursDrain, bareDrain] = SIDES.map(of) as [E2eRun[], E2eRun[], E2eRun[], E2eRun[]];
  const rows = campaignRows.toLocaleString('en-US');
  const loads = measured.map((r) => r.loadAverage.toFixed(2)).join(', ');
  return {
    section: 'e2e',
    figures: [
      figure({
        label: `end to end, ${rows} rows: send → last request accepted (speed = 1 / time)`,
        unit: 'msg/s',
        ours: oursE2e.map((r) => (1000 * r.rows) / (r.endToEndMs ?? Number.NaN)),
        baseline: bareE2e.map((r) => (1000 * r.rows) / (r.endToEndMs ?? Number.NaN)),
        baselineLabel: 'bare csv-parse+addBulk, bare BullMQ+undici worker already running',
        judgedOn: 'median',
        target: '>= 0.9x bare',
        check: (_value, ratio) => (ratio >= 0.9 ? [] : ['< 0.9x bare']),
      }),
      figure({
        label: `drain ${rows} rows, no limiter (rows loaded before the worker starts)`,
        unit: 'msg/s',
        ours: oursDrain.map((r) => r.messagesPerSecond),
        baseline: bareDrain.map((r) => r.messagesPerSecond),
        baselineLabel: 'bare BullMQ+undici worker, jobs written before',
        judgedOn: 'median',
        target: '>= 0.8x bare',
        check: (_value, ratio) => (ratio >= 0.8 ? [] : ['< 0.8x bare']),
      }),
      figure({
        label: 'worker CPU per 1,000 messages (end to end, worker ready before the clock)',
        unit: 'CPU s',
        digits: 3,
        ours: oursE2e.map((r) => r.cpuPerThousand),
        baseline: bareE2e.map((r) => r.cpuPerThousand),
        baselineLabel: 'bare BullMQ+undici worker',
        judgedOn: 'median',
        target: 'informational: decides how many numbers one worker process serves',
        informational: true,
        check: () => [],
      }),
    ],
    runs: measured.map((r) => ({ ...r })),
    notes: [
      `e2e: load average (1 min) at the start of each run: [${loads}] (a machine shared with other work)`,
      `e2e: end-to-end seconds, ours [${oursE2e.map((r) => ((r.endToEndMs ?? 0) / 1000).toFixed(2)).join(', ')}], ` +
        `bare [${bareE2e.map((r) => ((r.endToEndMs ?? 0) / 1000).toFixed(2)).join(', ')}]`,
      `e2e: worker CPU s per 1,000 in the drain runs (start-up included): ours ` +
        `${medianOf(oursDrain, (r) => r.cpuPerThousand).toFixed(3)}, bare ${medianOf(bareDrain, (r) => r.cpuPerThousand).toFixed(3)}; ` +
        `median worker share of a core end to end: ours ${pct(medianOf(oursE2e, (r) => r.workerCores))}, ` +
        `bare ${pct(medianOf(bareE2e, (r) => r.workerCores))}`,
    ],
    method: [
      `e2e: ${runs} run(s) per side after one untimed ${WARMUP_ROWS}-row warm-up each, ` +
        `sides in an order that changes each run (first, last and who follows whom). End to end: ` +
        `\`campaign worker --phone-number-id ID\` (SEND_RATE=0, SEND_CONCURRENCY=${CONCURRENCY}) started and idle ` +
        `("serving phone number"), then the clock starts at the spawn of \`campaign send\` of the ${rows}-row file and ` +
        `stops at the sandbox's receivedAt of the last accepted request; bare: bench/bare-worker.ts started and ready, ` +
        `then bench/bare-ingest.ts (run under tsx, so its start-up is slower than the compiled CLI's). ` +
        `CPU per 1,000 = the worker's utime+stime from /proc/PID/stat over the same interval, per 1,000 accepted. ` +
        `Drain: rows loaded untimed, then the worker spawned; msg/s = accepted / (last − first receivedAt).`,
    ],
  };
}
