import { readFileSync } from 'node:fs';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { startChild, stopChild, type Child } from './support/children.js';
import { ensureCsv } from './support/data.js';
import { figure, fmt, type SectionResult } from './support/figures.js';
import { CAMPAIGN_BIN, ROOT, campaignSend, productEnv } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import { startSandboxChild, type SandboxChild } from './support/sandbox.js';
import { coreShare, cpuSeconds } from './support/cpu.js';

/**
 * The soak: one campaign of `rows` rows ingested with `campaign send`, then
 * sent by one `campaign worker` with pacing off (SEND_RATE=0) to a sandbox of its own that
 * keeps only its newest 100,000 messages (it would otherwise hold every body sent). Every 10 s:
 * messages accepted, Redis's used_memory and the worker's RSS. Steady means the last tenth of
 * the run sends as fast as the first and the worker's RSS does not climb with the rows sent;
 * Redis grows by what each sent row keeps (its message ID, the duplicate guard's entry).
 */
export const SOAK_ROWS = 10_000_000;
const SAMPLE_EVERY_MS = 10_000;
/** No new message for this long ends the soak as failed. */
const STALL_MS = 120_000;

interface Sample {
  seconds: number;
  accepted: number;
  redisBytes: number;
  workerRssBytes: number;
  /** The receiver's RSS: what it keeps per accepted send would show here, and slow it down as it grows. */
  sandboxRssBytes: number;
  /** Share of one core each used since the previous sample: which one holds the pace back. */
  cpu: { worker?: number | undefined; sandbox?: number | undefined; redis?: number | undefined };
}

export async function benchSoak(options: { rows: number; redis: Redis; redisPid: number | undefined }): Promise<SectionResult> {
  const { rows, redis } = options;
  console.error(`  soak: generating ${rows} rows (reused when it exists)`);
  const file = await ensureCsv(rows);
  const sandbox = await startSandboxChild(undefined, [], ['--retain-accepted', '100000']);
  const prefix = freshPrefix('soak');
  let worker: Child | undefined;
  try {
    const before = await usedMemory(redis);
    const ingestStart = performance.now();
    const summary = await campaignSend(file, prefix);
    const ingestSeconds = (performance.now() - ingestStart) / 1000;
    if (summary.queued !== rows) throw new Error(`campaign send queued ${summary.queued} of ${rows}`);
    const afterIngest = await usedMemory(redis);
    console.error(`  soak: ingested ${rows} rows in ${fmt(ingestSeconds, 1)} s; Redis +${fmt((afterIngest - before) / 1e6)} MB`);

    await sandbox.reset();
    const env = productEnv(prefix, { WHATSAPP_API_URL: sandbox.url, SEND_RATE: '0', LOG_LEVEL: 'warn' });
    worker = startChild('campaign worker (soak)', process.execPath, [CAMPAIGN_BIN, 'worker'], env, ROOT);
    const samples = await sampleUntilSent({ redis, redisPid: options.redisPid, sandbox, worker, rows });
    const duplicates = (await sandbox.stats()) as { duplicates?: number };
    return soakResult({ rows, ingestSeconds, before, afterIngest, samples, duplicates });
  } finally {
    if (worker !== undefined) await stopChild(worker);
    await sandbox.stop();
    await deletePrefix(redis, prefix);
  }
}

/** Every SAMPLE_EVERY_MS until the sandbox has accepted every row: sent, Redis memory, worker RSS, CPU shares. Throws on a stall. */
async function sampleUntilSent(run: {
  redis: Redis;
  redisPid: number | undefined;
  sandbox: SandboxChild;
  worker: Child;
  rows: number;
}): Promise<Sample[]> {
  const { redis, sandbox, worker, rows } = run;
  const started = performance.now();
  const samples: Sample[] = [];
  const pids = { worker: worker.pid, sandbox: sandbox.child.pid, redis: run.redisPid };
  let cpuBefore = {
    worker: cpuSeconds(pids.worker),
    sandbox: cpuSeconds(pids.sandbox),
    redis: cpuSeconds(pids.redis),
    at: performance.now(),
  };
  let lastProgress = performance.now();
  let last = 0;
  for (;;) {
    await sleep(SAMPLE_EVERY_MS);
    const accepted = (await sandbox.stats()).accepted;
    const cpuNow = {
      worker: cpuSeconds(pids.worker),
      sandbox: cpuSeconds(pids.sandbox),
      redis: cpuSeconds(pids.redis),
      at: performance.now(),
    };
    const wall = cpuNow.at - cpuBefore.at;
    const cpu = {
      worker: coreShare(cpuBefore.worker, cpuNow.worker, wall),
      sandbox: coreShare(cpuBefore.sandbox, cpuNow.sandbox, wall),
      redis: coreShare(cpuBefore.redis, cpuNow.redis, wall),
    };
    cpuBefore = cpuNow;
    const sample = {
      seconds: (performance.now() - started) / 1000,
      accepted,
      redisBytes: await usedMemory(redis),
      workerRssBytes: rssOf(worker.pid),
      sandboxRssBytes: rssOf(sandbox.child.pid),
      cpu,
    };
    samples.push(sample);
    console.error(
      `  soak ${fmt(sample.seconds)} s: ${accepted} sent, Redis ${fmt(sample.redisBytes / 1e6)} ` +
        `MB, worker RSS ${fmt(sample.workerRssBytes / 1e6)} MB, sandbox RSS ${fmt(sample.sandboxRssBytes / 1e6)} MB, ` +
        `CPU worker/sandbox/redis ${[cpu.worker, cpu.sandbox, cpu.redis].map((c) => (c === undefined ? '?' : c.toFixed(2))).join('/')}`,
    );
    if (accepted >= rows) break;
    if (accepted > last) lastProgress = performance.now();
    else if (performance.now() - lastProgress > STALL_MS) throw new Error(`soak stalled at ${accepted} of ${rows}\n${worker.tail()}`);
    last = accepted;
  }
  return samples;
}

/** The soak's figures: the last tenth of the run against its first tenth. */
function soakResult(run: {
  rows: number;
  ingestSeconds: number;
  before: number;
  afterIngest: number;
  samples: Sample[];
  duplicates: { duplicates?: number };
}): SectionResult {
  const { rows, ingestSeconds, before, afterIngest, samples, duplicates } = run;
  const tenth = Math.max(1, Math.floor(samples.length / 10));
  const rateOf = (part: Sample[]) => {
    const first = part[0];
    const end = part.at(-1);
    return first === undefined || end === undefined || end.seconds === first.seconds
      ? Number.NaN
      : (end.accepted - first.accepted) / (end.seconds - first.seconds);
  };
  // The first and last tenth of the samples (the very last one may include the drained end).
  const head = samples.slice(0, tenth + 1);
  const tail = samples.slice(-tenth - 2, -1);
  const rssHead = Math.max(...head.map((s) => s.workerRssBytes)) / 1e6;
  const rssTail = Math.max(...tail.map((s) => s.workerRssBytes)) / 1e6;
  const end = samples.at(-1);
  const totalSeconds = end?.seconds ?? Number.NaN;
  const columns = { ours: 'last tenth', baseline: 'first tenth', ratio: 'ratio' };
  return {
    section: 'soak',
    columns,
    figures: [
      figure({
        label: `soak ${fmt(rows)} rows: send rate`,
        unit: 'msg/s',
        ours: [rateOf(tail)],
        baseline: [rateOf(head)],
        baselineLabel: 'the first tenth of the same run',
        judgedOn: 'median',
        target: 'last tenth >= 0.9x first',
        check: (_value, ratio) => (ratio >= 0.9 ? [] : [`fell to ${ratio.toFixed(2)}x`]),
      }),
      figure({
        label: `soak ${fmt(rows)} rows: worker RSS`,
        unit: 'MB',
        ours: [rssTail],
        baseline: [rssHead],
        baselineLabel: 'the first tenth of the same run',
        judgedOn: 'worst run',
        target: 'last tenth <= 1.2x first',
        check: (_value, ratio) => (ratio <= 1.2 ? [] : [`grew ${ratio.toFixed(2)}x`]),
      }),
    ],
    runs: samples.map((s) => ({ ...s })),
    method: [
      `soak: ${rows} generated rows, \`campaign send\` (${fmt(ingestSeconds, 1)} s, ${fmt(rows / ingestSeconds)} ` +
        `rows/s), then one \`campaign worker\` with SEND_RATE=0 against ` +
        '`campaign sandbox --mps 0 --retain-accepted 100000`; sampled every 10 s (sandbox stats, ' +
        'Redis INFO used_memory, /proc/<pid>/status VmRSS).',
    ],
    notes: [
      `soak: ${rows} sent in ${fmt(totalSeconds)} s (${fmt(rows / totalSeconds)} msg/s overall); ` +
        `sandbox duplicates ${String(duplicates.duplicates ?? '?')}`,
      `soak: Redis used_memory ${fmt(before / 1e6)} MB before, ${fmt(afterIngest / 1e6)} MB after ` +
        `ingest (${fmt((afterIngest - before) / rows)} B/row), ` +
        `${fmt((end?.redisBytes ?? Number.NaN) / 1e6)} MB when every row was sent ` +
        `(${fmt(((end?.redisBytes ?? Number.NaN) - before) / rows)} B/row)`,
      `soak: CPU, share of a core, first tenth → last tenth: worker ${meanCpu(head, 'worker')} → ${meanCpu(tail, 'worker')}, ` +
        `sandbox ${meanCpu(head, 'sandbox')} → ${meanCpu(tail, 'sandbox')}, redis-server ` +
        `${meanCpu(head, 'redis')} → ${meanCpu(tail, 'redis')}`,
      `soak: sandbox RSS, most in the first tenth → the last: ${fmt(Math.max(...head.map((s) => s.sandboxRssBytes)) / 1e6)} → ` +
        `${fmt(Math.max(...tail.map((s) => s.sandboxRssBytes)) / 1e6)} MB`,
      `soak: per minute (s: sent, Redis MB, worker RSS MB): ${samples
        .filter((_, i) => i % 6 === 5 || i === samples.length - 1)
        .map((s) => `${fmt(s.seconds)}: ${s.accepted}, ${fmt(s.redisBytes / 1e6)}, ${fmt(s.workerRssBytes / 1e6)}`)
        .join('; ')}`,
    ],
  };
}

async function usedMemory(redis: Redis): Promise<number> {
  return Number(/used_memory:(\d+)/.exec(await redis.info('memory'))?.[1] ?? Number.NaN);
}

function rssOf(pid: number): number {
  try {
    return Number(/VmRSS:\s+(\d+) kB/.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? Number.NaN) * 1024;
  } catch {
    return Number.NaN;
  }
}

function meanCpu(samples: readonly Sample[], who: keyof Sample['cpu']): string {
  const values = samples.map((s) => s.cpu[who]).filter((v): v is number => v !== undefined);
  return values.length === 0 ? '?' : (values.reduce((a, b) => a + b, 0) / values.length).toFixed(2);
}
