import { randomBytes } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { runToExit, startChild, stopChild, type Child } from './support/children.js';
import { ensureCsv } from './support/data.js';
import { figure, fmt, type SectionResult } from './support/figures.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, benchScriptArgs, campaignSend, productEnv } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import { firstAccepted, type SandboxChild } from './support/sandbox.js';
import { busiestWindow } from './support/stats.js';
import { startWireCapture, type WireCapture } from './support/wire-capture.js';
import {
  SWEEP_METHOD,
  SWEEP_RATES,
  SWEEP_SCENARIOS,
  measureSweepCell,
  sweepFigures,
  sweepLine,
  sweepWireNotes,
  type SweepRun,
} from './rate-sweep.js';

/**
 * (c) Rate: `campaign worker` at SEND_RATE=80 for 20 s of sending, measured by the receiving
 * server (the sandbox at --mps 0 counts and accepts everything, so nothing is throttled and
 * every arrival is seen). The 20 s window opens at the first accepted message. The baseline
 * is a bare BullMQ worker with the plain limiter { max: 80, duration: 1000 }: what the
 * product's short-window limiter is meant to improve on (DESIGN.md measured 130–158 in its
 * busiest second).
 */
export const RATE = 80;
export const RATE_ROWS = 2000;
export const RATE_WINDOW_MS = 20_000;
/** The product's default SEND_CONCURRENCY, set explicitly so a changed default is visible here. */
export const RATE_CONCURRENCY = 50;

interface RateRun {
  side: 'ours' | 'bare';
  /** Accepted in [first, first + 20 s) divided by 20 s. */
  achievedPerSecond: number;
  /** Most receivedAt in any [t, t + 1000 ms), over everything accepted in the run. */
  busiestSecond: number;
  /** The sandbox's own count of the same thing, as a cross-check. */
  sandboxBusiestSecond: number;
  /** The same count of the message POSTs by their arrival at the sandbox's port (NaN: not captured, `wireUnavailable` says why). */
  wireBusiestSecond: number;
  wireUnavailable?: string;
  /**
   * Most arrivals in any 25 ms / 100 ms window: tells a burst the limiter lets through
   * (the product's limiter allows 2 per 25 ms) from arrivals bunched by scheduling jitter.
   */
  busiest25ms: number;
  busiest100ms: number;
  acceptedTotal: number;
  rejectedByCode: Record<string, number>;
}

const QUEUE_NAME = `send-${PHONE_NUMBER_ID}`;

export async function benchRate(options: { runs: number; redis: Redis; sandbox: SandboxChild }): Promise<SectionResult> {
  // Pacing measured at the receiver: the sandbox in the real-time class (see RECEIVER_REALTIME_PRIORITY).
  return options.sandbox.realtime(() => measureRateSection(options));
}

async function measureRateSection(options: { runs: number; redis: Redis; sandbox: SandboxChild }): Promise<SectionResult> {
  const file = await ensureCsv(RATE_ROWS);
  const measured: RateRun[] = [];

  const sweep: SweepRun[] = [];
  for (let i = 0; i < options.runs; i++) {
    for (const rate of SWEEP_RATES) {
      for (const scenario of SWEEP_SCENARIOS) {
        const run = await measureSweepCell(options, rate, scenario);
        sweep.push(run);
        console.error(`  rate sweep run ${i + 1}/${options.runs} at ${sweepLine(run)}`);
      }
    }
    const order: ('ours' | 'bare')[] = i % 2 === 0 ? ['ours', 'bare'] : ['bare', 'ours'];
    for (const side of order) {
      const run = await measureRate(options, file, side);
      measured.push(run);
      console.error(
        `  rate run ${i + 1}/${options.runs} ${side}: ${fmt(run.achievedPerSecond, 1)} msg/s over ${RATE_WINDOW_MS / 1000} s, ` +
          `busiest second ${run.busiestSecond} (sandbox says ${run.sandboxBusiestSecond}, on the wire ${fmt(run.wireBusiestSecond)})`,
      );
    }
  }
  const result = rateResult(measured);
  return {
    ...result,
    figures: [...sweepFigures(sweep), ...result.figures],
    runs: [...sweep.map((r) => ({ ...r })), ...result.runs],
    method: [SWEEP_METHOD, ...result.method],
    notes: [...sweepWireNotes(sweep), ...result.notes],
  };
}

/** Loads the rows (ours into the backlog, bare as BullMQ jobs), then lets the side's worker send until the window is complete. */
async function measureRate(rig: { redis: Redis; sandbox: SandboxChild }, file: string, side: 'ours' | 'bare'): Promise<RateRun> {
  const { sandbox, redis } = rig;
  const prefix = freshPrefix(`rate-${side}`);
  let worker: Child | undefined;
  let wire: WireCapture | undefined;
  try {
    if (side === 'ours') {
      const summary = await campaignSend(file, prefix);
      if (summary.queued !== RATE_ROWS) throw new Error(`campaign send queued ${summary.queued} of ${RATE_ROWS}`);
    } else {
      const campaignId = `bare${randomBytes(3).toString('hex')}`;
      await runToExit(
        startChild(
          'bare-ingest',
          process.execPath,
          benchScriptArgs('bare-ingest.ts', [file, prefix, QUEUE_NAME, campaignId]),
          productEnv(prefix),
          ROOT,
        ),
        300_000,
      );
    }
    await sandbox.reset();
    wire = await startWireCapture(Number(new URL(sandbox.url).port));
    const env = productEnv(prefix, {
      WHATSAPP_API_URL: sandbox.url,
      SEND_RATE: String(RATE),
      SEND_CONCURRENCY: String(RATE_CONCURRENCY),
    });
    worker =
      side === 'ours'
        ? startChild('campaign worker', process.execPath, [CAMPAIGN_BIN, 'worker'], env, ROOT)
        : startChild(
            'bare-worker',
            process.execPath,
            benchScriptArgs('bare-worker.ts', [
              prefix,
              QUEUE_NAME,
              sandbox.url,
              PHONE_NUMBER_ID,
              String(RATE_CONCURRENCY),
              '0',
              String(RATE),
            ]),
            env,
            ROOT,
          );
    const first = await firstAccepted(sandbox, [worker]);
    // A little past the window's end, so the window is complete when the worker stops.
    await sleep(Math.max(0, first + RATE_WINDOW_MS + 250 - Date.now()));
    await stopChild(worker);
    const onWire = await wire.stop();
    const times = await sandbox.acceptedTimes();
    const stats = await sandbox.stats();
    const inWindow = times.filter((t) => t >= first && t < first + RATE_WINDOW_MS).length;
    return {
      side,
      achievedPerSecond: inWindow / (RATE_WINDOW_MS / 1000),
      busiestSecond: busiestWindow(times, 1000),
      sandboxBusiestSecond: stats.busiestSecond,
      wireBusiestSecond: onWire === undefined ? Number.NaN : busiestWindow(onWire.get(PHONE_NUMBER_ID) ?? [], 1000),
      ...(wire.unavailable === undefined ? {} : { wireUnavailable: wire.unavailable }),
      busiest25ms: busiestWindow(times, 25),
      busiest100ms: busiestWindow(times, 100),
      acceptedTotal: times.length,
      rejectedByCode: stats.rejectedByCode,
    };
  } finally {
    if (worker !== undefined) await stopChild(worker);
    await wire?.stop().catch(() => undefined);
    await deletePrefix(redis, prefix);
  }
}

/** The busiest second per run on the wire, beside the judged one the sandbox stamped (see wire-capture.ts). */
function wireNote(ours: readonly RateRun[], bare: readonly RateRun[]): string {
  const why = [...ours, ...bare].find((r) => r.wireUnavailable !== undefined)?.wireUnavailable;
  if (why !== undefined) return `rate: busiest second on the wire: n/a, ${why}`;
  const perRun = (runs: readonly RateRun[]) => runs.map((r) => fmt(r.wireBusiestSecond)).join(', ');
  const where = "the POSTs' arrival at the sandbox's port";
  return `rate: busiest second on the wire per run (${where}), ours [${perRun(ours)}], bare [${perRun(bare)}]`;
}

/** The rate section's table lines, notes and method from its measured runs. */
function rateResult(measured: RateRun[]): SectionResult {
  const ours = measured.filter((r) => r.side === 'ours');
  const bare = measured.filter((r) => r.side === 'bare');
  const baselineLabel = 'bare worker, limiter {max:80,duration:1000}';
  return {
    section: 'rate',
    figures: [
      figure({
        label: `rate at SEND_RATE=${RATE}, ${RATE_WINDOW_MS / 1000} s`,
        unit: 'msg/s',
        ours: ours.map((r) => r.achievedPerSecond),
        baseline: bare.map((r) => r.achievedPerSecond),
        baselineLabel,
        judgedOn: 'median',
        target: `${RATE} ± 3 msg/s`,
        check: (value) => (Math.abs(value - RATE) <= 3 ? [] : [`off by ${(value - RATE).toFixed(1)}`]),
      }),
      figure({
        label: 'rate busiest sliding second',
        unit: 'msgs',
        ours: ours.map((r) => r.busiestSecond),
        baseline: bare.map((r) => r.busiestSecond),
        baselineLabel,
        judgedOn: 'worst run',
        target: `no window above ${RATE + 1}`,
        check: (value) => (value <= RATE + 1 ? [] : [`${value} in one second`]),
      }),
    ],
    runs: measured.map((r) => ({ ...r })),
    notes: [
      `rate: sandbox rejections (should be none at --mps 0): ours ${JSON.stringify(ours.map((r) => r.rejectedByCode))}, ` +
        `bare ${JSON.stringify(bare.map((r) => r.rejectedByCode))}; busiest second per run, ours ` +
        `[${ours.map((r) => r.busiestSecond).join(', ')}], ` +
        `bare [${bare.map((r) => r.busiestSecond).join(', ')}]`,
      wireNote(ours, bare),
      `rate: busiest 25 ms / 100 ms windows per run: ours [${ours.map((r) => `${r.busiest25ms}/${r.busiest100ms}`).join(', ')}], ` +
        `bare [${bare.map((r) => `${r.busiest25ms}/${r.busiest100ms}`).join(', ')}] (a steady 80/s is 2 per 25 ms, 8 per 100 ms)`,
    ],
    method: [
      `rate: ${RATE_ROWS} rows loaded (ours: \`campaign send\` into the backlog, fed by the worker; ` +
        `bare: jobs written by bench/bare-ingest.ts), then \`campaign worker\` (SEND_RATE=${RATE}, ` +
        `SEND_CONCURRENCY=${RATE_CONCURRENCY}) vs bench/bare-worker.ts ` +
        `(limiter {max:${RATE},duration:1000}, same concurrency) against \`campaign sandbox ` +
        `--mps 0\`; SIGTERM ${RATE_WINDOW_MS / 1000} s after ` +
        `the first accepted message. Rate = accepted in [first, first+${RATE_WINDOW_MS / 1000} ` +
        `s) / ${RATE_WINDOW_MS / 1000}; busiest = max accepted ` +
        `receivedAt in any [t, t+1000 ms) over the whole run (cross-checked with the sandbox's stats.busiestSecond).`,
    ],
  };
}
