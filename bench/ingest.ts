import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { cpus } from 'node:os';
import type { Redis } from 'ioredis';
import { runToExit, startChild } from './support/children.js';
import { coreShare, cpuSeconds, machineBusySeconds, speedProbeMs } from './support/cpu.js';
import { OUT_DIR, ensureCsv } from './support/data.js';
import { figure, type SectionResult } from './support/figures.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, benchScriptArgs, parseSendSummary, productEnv, sendArgs } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import { median, medianOf } from './support/stats.js';

/**
 * (a) Ingest: `campaign send` of N generated rows with no worker running, against the bare
 * csv-parse + addBulk loop (bench/bare-ingest.ts). Both are child processes timed from spawn
 * to exit, so both pay the same node + tsx start-up; GNU time reports each one's peak RSS
 * and CPU time. The order alternates between runs so drift on a noisy machine hits both.
 */
const GNU_TIME = '/usr/bin/time';

interface IngestRun {
  side: 'ours' | 'bare';
  rows: number;
  queued: number;
  wallMs: number;
  rowsPerSecond: number;
  peakRssMb: number;
  /** CPU seconds of the child (user + sys) over its wall time: its share of one core. */
  childCores: number;
  redisCores: number | undefined;
  /** Whole machine, in cores (of all of them): includes everyone else's work on this shared machine. */
  machineCores: number | undefined;
  /** speedProbeMs() just before the run: the machine's speed at the time. */
  probeMs: number;
}

interface IngestRig {
  rows: number;
  redis: Redis;
  redisPid: number | undefined;
  file: string;
  tmp: string;
}

export async function benchIngest(options: {
  runs: number;
  rows: number;
  redis: Redis;
  redisPid: number | undefined;
}): Promise<SectionResult> {
  const file = await ensureCsv(options.rows);
  const tmp = join(OUT_DIR, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const measured: IngestRun[] = [];
  const rig: IngestRig = { ...options, file, tmp };

  // Start-up first: its first, unrecorded round also fills tsx's transform cache, so the
  // first measured ingest does not pay for compiling the code (the product's graph is larger).
  const startup = await measureStartup(options.runs);
  for (let i = 0; i < options.runs; i++) {
    const order: ('ours' | 'bare')[] = i % 2 === 0 ? ['ours', 'bare'] : ['bare', 'ours'];
    for (const side of order) {
      const run = await measureIngest(rig, side);
      measured.push(run);
      console.error(
        `  ingest run ${i + 1}/${options.runs} ${side}: ${Math.round(run.rowsPerSecond)} rows/s, ${Math.round(run.peakRssMb)} MB, ` +
          `CPU: child ${pct(run.childCores)}, redis ${pct(run.redisCores)} of a core; whole machine ` +
          `${pct(run.machineCores)} (of ${cpus().length * 100}%)`,
      );
    }
  }
  return ingestResult(measured, startup, options);
}

/** One `campaign send` (ours) or bare-ingest.ts run, timed spawn → exit under GNU time; its prefix is deleted after. */
async function measureIngest(rig: IngestRig, side: 'ours' | 'bare'): Promise<IngestRun> {
  const prefix = freshPrefix(`ingest-${side}`);
  const timeFile = join(rig.tmp, `${prefix}.time`);
  const args =
    side === 'ours'
      ? [process.execPath, ...sendArgs(rig.file)]
      : [
          process.execPath,
          ...benchScriptArgs('bare-ingest.ts', [rig.file, prefix, `send-${PHONE_NUMBER_ID}`, `bare${randomBytes(3).toString('hex')}`]),
        ];
  const useTime = existsSync(GNU_TIME);
  const [command, ...rest] = useTime ? [GNU_TIME, '-f', '%M %U %S', '-o', timeFile, ...args] : args;
  const probeMs = speedProbeMs();
  const redisBefore = cpuSeconds(rig.redisPid);
  const machineBefore = machineBusySeconds();
  const child = startChild(side === 'ours' ? 'campaign send' : 'bare-ingest', command ?? process.execPath, rest, productEnv(prefix), ROOT);
  try {
    const exit = await runToExit(child, 600_000);
    const wallMs = exit.at - child.startedAt;
    const redisCores = coreShare(redisBefore, cpuSeconds(rig.redisPid), wallMs);
    const machineCores = coreShare(machineBefore, machineBusySeconds(), wallMs);
    const summary =
      side === 'ours'
        ? parseSendSummary(child)
        : (JSON.parse(child.stdout().trim().split('\n').pop() ?? '{}') as { rows: number; queued: number });
    if (summary.queued !== rig.rows) throw new Error(`${side}: queued ${summary.queued} of ${rig.rows} rows`);
    // GNU time's last line: max RSS in KiB, user and system CPU seconds.
    const [rssKb, user, sys] = useTime ? (readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '').split(' ').map(Number) : [];
    return {
      side,
      rows: summary.rows,
      queued: summary.queued,
      wallMs,
      rowsPerSecond: summary.rows / (wallMs / 1000),
      peakRssMb: (rssKb ?? Number.NaN) / 1024,
      childCores: ((user ?? Number.NaN) + (sys ?? Number.NaN)) / (wallMs / 1000),
      redisCores,
      machineCores,
      probeMs,
    };
  } finally {
    rmSync(timeFile, { force: true });
    await deletePrefix(rig.redis, prefix);
  }
}

/** The ingest section's table lines, notes and method from its measured runs. */
function ingestResult(
  measured: IngestRun[],
  startup: { ours: number; bare: number },
  options: { rows: number; runs: number },
): SectionResult {
  const ours = measured.filter((r) => r.side === 'ours');
  const bare = measured.filter((r) => r.side === 'bare');
  const baselineLabel = 'bare csv-parse+addBulk';
  const cpu = (runs: IngestRun[]) =>
    `process ${pct(medianOf(runs, (r) => r.childCores))}, redis ${pct(medianOf(runs, (r) => r.redisCores))}, ` +
    `whole machine ${pct(medianOf(runs, (r) => r.machineCores))}; wall ${(medianOf(runs, (r) => r.wallMs) / 1000).toFixed(2)} s`;
  return {
    section: 'ingest',
    figures: [
      figure({
        label: `ingest ${options.rows.toLocaleString('en-US')} rows`,
        unit: 'rows/s',
        ours: ours.map((r) => r.rowsPerSecond),
        baseline: bare.map((r) => r.rowsPerSecond),
        baselineLabel,
        judgedOn: 'median',
        target: '>= 0.8x bare and >= 10,000 rows/s',
        check: (value, ratio) => [...(ratio >= 0.8 ? [] : ['< 0.8x bare']), ...(value >= 10_000 ? [] : ['< 10,000 rows/s'])],
      }),
      figure({
        label: 'ingest peak RSS',
        unit: 'MB',
        ours: ours.map((r) => r.peakRssMb),
        baseline: bare.map((r) => r.peakRssMb),
        baselineLabel,
        judgedOn: 'worst run',
        target: '< 300 MB',
        check: (value) => (value < 300 ? [] : ['>= 300 MB']),
      }),
    ],
    runs: [...measured.map((r) => ({ ...r })), { startup }],
    notes: [
      `ingest: machine speed probe before each run (ms for a fixed hash loop, lower = faster): ` +
        `ours [${ours.map((r) => Math.round(r.probeMs)).join(', ')}], bare [${bare.map((r) => Math.round(r.probeMs)).join(', ')}]`,
      `ingest CPU, median share of one core over spawn→exit: ours ${cpu(ours)} | bare ${cpu(bare)}`,
      `start-up alone, spawn→exit, median of ${options.runs}: \`campaign --help\` ${startup.ours.toFixed(2)} s, ` +
        `bare-ingest.ts with no arguments (imports loaded, then exits) ${startup.bare.toFixed(2)} s: both are inside the ingest wall times`,
    ],
    method: [
      `ingest: \`campaign send FILE --template order_update --language en_US --params first_name,order_id --phone-number-id ID --json\` ` +
        `vs bench/bare-ingest.ts (csv-parse stream, one job per row with the product's data ` +
        `fields, the same jobId \`\${campaignId}-\${row}\` ` +
        `and job options, addBulk per 1000 rows, each awaited; no validation, no ledger; the product ` +
        `writes no jobs at ingest (its feeder writes them while the worker drains), ` +
        `only the ledger's rows and backlog, so the two sides no longer write the same data). Both are child processes timed spawn→exit ` +
        `(node + tsx start-up included on both sides); peak RSS and CPU from GNU time; no worker ` +
        `running; a fresh QUEUE_PREFIX per run, deleted after.`,
    ],
  };
}

/**
 * Start-up cost alone (node + tsx + the import graph), so the ingest figure can be read:
 * at 100,000 rows a second of start-up is a visible share of the wall time.
 */
async function measureStartup(runs: number): Promise<{ ours: number; bare: number }> {
  const seconds = { ours: [] as number[], bare: [] as number[] };
  for (let i = 0; i <= runs; i++) {
    for (const side of ['ours', 'bare'] as const) {
      const args = side === 'ours' ? [CAMPAIGN_BIN, '--help'] : benchScriptArgs('bare-ingest.ts', []);
      const child = startChild(`start-up ${side}`, process.execPath, args, productEnv('bench-startup'), ROOT);
      // bare-ingest exits with its usage message (code 2) once its imports are loaded: that is the point.
      const exit = await child.exited;
      // Round 0 is the warm-up: not recorded.
      if (i > 0) seconds[side].push((exit.at - child.startedAt) / 1000);
    }
  }
  return { ours: median(seconds.ours), bare: median(seconds.bare) };
}

export function pct(share: number | undefined): string {
  return share === undefined || !Number.isFinite(share) ? 'n/a' : `${Math.round(share * 100)}%`;
}
