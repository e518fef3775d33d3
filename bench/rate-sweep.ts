import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { startChild, stopChild, type Child } from './support/children.js';
import { ensureCsv } from './support/data.js';
import { figure, fmt, type Figure } from './support/figures.js';
import { CAMPAIGN_BIN, ROOT, campaignSend, productEnv } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import { firstAccepted, type SandboxChild } from './support/sandbox.js';
import { busiestWindow } from './support/stats.js';

/**
 * The floor and the ceiling at every rate an operator picks: warming a number up (4, 10), a
 * shared number (20), the default (80), a fast one (250) and Meta's top tier (1,000). One
 * `campaign worker` with its default concurrency sends to the sandbox (--mps 0: it accepts
 * everything), which stamps each arrival. After the first second, the achieved rate over
 * the window is set beside the rate asked for (the yardstick: at least 97%), and the busiest
 * sliding second of the whole run beside it (never above the rate).
 */
export const SWEEP_RATES = [4, 10, 20, 80, 250, 1000] as const;
const WINDOW_MS = 20_000;
/** Not counted: the worker's start, its first feed and the pacer's first slot. */
const FIRST_SECOND_MS = 1000;

export interface SweepRun {
  rate: number;
  achievedPerSecond: number;
  busiestSecond: number;
  accepted: number;
}

/** One run at `rate`: rows for the whole window (and a margin), sent by the product as a user runs it. */
export async function measureSweepRate(rig: { redis: Redis; sandbox: SandboxChild }, rate: number): Promise<SweepRun> {
  const rows = Math.max(100, Math.ceil((rate * (FIRST_SECOND_MS + WINDOW_MS + 4000)) / 1000 / 100) * 100);
  const file = await ensureCsv(rows);
  const prefix = freshPrefix(`sweep-${rate}`);
  let worker: Child | undefined;
  try {
    const summary = await campaignSend(file, prefix);
    if (summary.queued !== rows) throw new Error(`campaign send queued ${summary.queued} of ${rows}`);
    await rig.sandbox.reset();
    worker = startChild(
      'campaign worker',
      process.execPath,
      [CAMPAIGN_BIN, 'worker'],
      productEnv(prefix, { WHATSAPP_API_URL: rig.sandbox.url, SEND_RATE: String(rate) }),
      ROOT,
    );
    const first = await firstAccepted(rig.sandbox, [worker]);
    const from = first + FIRST_SECOND_MS;
    await sleep(Math.max(0, from + WINDOW_MS + 250 - Date.now()));
    await stopChild(worker);
    const times = await rig.sandbox.acceptedTimes();
    const inWindow = times.filter((t) => t >= from && t < from + WINDOW_MS).length;
    return { rate, achievedPerSecond: inWindow / (WINDOW_MS / 1000), busiestSecond: busiestWindow(times, 1000), accepted: times.length };
  } finally {
    if (worker !== undefined) await stopChild(worker);
    await deletePrefix(rig.redis, prefix);
  }
}

/** Two lines per rate: achieved / asked (worst run, at least 97%) and the busiest second (worst run, never above the rate). */
export function sweepFigures(runs: readonly SweepRun[]): Figure[] {
  return SWEEP_RATES.flatMap((rate) => {
    const mine = runs.filter((r) => r.rate === rate);
    const asked = mine.map(() => rate);
    return [
      figure({
        label: `rate ${rate}/s: achieved after the first second`,
        unit: 'msg/s',
        ours: mine.map((r) => r.achievedPerSecond),
        baseline: asked,
        baselineLabel: 'SEND_RATE asked',
        judgedOn: 'median',
        target: '≥ 97% of the rate in every run',
        check: () => {
          const worst = Math.min(...mine.map((r) => r.achievedPerSecond));
          return worst >= 0.97 * rate ? [] : [`a run at ${fmt((100 * worst) / rate, 1)}%`];
        },
        digits: 2,
      }),
      figure({
        label: `rate ${rate}/s: busiest sliding second`,
        unit: 'msgs',
        ours: mine.map((r) => r.busiestSecond),
        baseline: asked,
        baselineLabel: 'SEND_RATE asked',
        judgedOn: 'worst run',
        target: `never above ${rate}`,
        check: (value) => (value <= rate ? [] : [`${value} in one second`]),
      }),
    ];
  });
}

export const SWEEP_METHOD =
  `rate: for each SEND_RATE of ${SWEEP_RATES.join(', ')}: \`campaign send\` of enough rows for ${(FIRST_SECOND_MS + WINDOW_MS) / 1000} s ` +
  '(and a margin), then one `campaign worker` (SEND_CONCURRENCY unset: the default for the rate) against `campaign sandbox --mps 0`, ' +
  `stopped ${(FIRST_SECOND_MS + WINDOW_MS) / 1000} s after the first accepted message. Achieved = accepted in ` +
  `[first + 1 s, first + ${(FIRST_SECOND_MS + WINDOW_MS) / 1000} s) / ${WINDOW_MS / 1000} s; busiest = max accepted in any ` +
  "[t, t + 1000 ms) over the whole run, by the sandbox's clock of arrival.";
