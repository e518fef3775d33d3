import { mkdirSync } from 'node:fs';
import { join } from 'node:path';
import type { Redis } from 'ioredis';
import { OUT_DIR, ensureCsv } from './support/data.js';
import type { SectionResult } from './support/figures.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import type { SandboxChild } from './support/sandbox.js';
import { runCli, timeControl } from './feeder/cli-calls.js';
import { measureDrainingControls } from './feeder/draining.js';
import { describeControl, describeSend, feederResult } from './feeder/report.js';
import { measureSend } from './feeder/send-run.js';
import { DRAIN_SEND_RATE } from './feeder/targets.js';
import type { FeederRun } from './feeder/types.js';

/**
 * (d) The feeder: a 1,000,000-row campaign sent with the real `campaign send` and no worker
 * running, then paused, resumed and cancelled with the real CLI, each figure beside the one
 * measured with one BullMQ job per row written at ingest, and beside its target.
 *
 * Per run, on fresh QUEUE_PREFIXes: `campaign send` of N/10 rows, then of N rows, each with
 * GNU time (peak RSS = ru_maxrss of the node process) and Redis `used_memory` before and
 * after (B per pending row); then, on the N-row campaign: pause and resume with no worker,
 * pause and resume while `campaign worker` drains it at SEND_RATE=80 into the sandbox, and
 * cancel while it drains. Every control call is timed spawn → exit next to the CLI's bare
 * start-up measured just before it, in the same conditions: `campaign list` on an empty
 * prefix (process, tsx, config, a Redis connection, one read), and `campaign --help`. The
 * control's own cost is the call minus the former; minus `--help` it also holds loading the
 * Redis client and opening the connection, which `--help` skips.
 */
export const FEEDER_ROWS = 1_000_000;

interface FeederRig {
  runs: number;
  rows: number;
  smallRows: number;
  files: { small: string; large: string };
  redis: Redis;
  redisPid: number | undefined;
  sandbox: SandboxChild;
  tmp: string;
  /** A prefix with no campaign, for the start-up calls measured beside each control. */
  empty: string;
}

export async function benchFeeder(options: {
  runs: number;
  rows: number;
  redis: Redis;
  redisPid: number | undefined;
  sandbox: SandboxChild;
}): Promise<SectionResult> {
  const { redis } = options;
  const smallRows = Math.max(1, Math.round(options.rows / 10));
  const files = { small: await ensureCsv(smallRows), large: await ensureCsv(options.rows) };
  const tmp = join(OUT_DIR, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const empty = freshPrefix('feeder-empty');
  const rig: FeederRig = { ...options, smallRows, files, tmp, empty };

  // Warm-up, not recorded: fills tsx's transform cache for the CLI's import graph.
  await runCli(['--help'], empty);
  await runCli(['list'], empty);
  const measured: FeederRun[] = [];
  try {
    for (let i = 1; i <= options.runs; i++) measured.push(await measureRun(rig, i));
  } finally {
    await deletePrefix(redis, empty);
  }
  return feederResult(measured, options.rows, smallRows);
}

/** One run: both sends, then the controls on the large campaign with no worker and with one draining it. */
async function measureRun(rig: FeederRig, i: number): Promise<FeederRun> {
  const { redis, sandbox, empty } = rig;
  const prefixes: string[] = [];
  try {
    const small = await measureSend(rig, rig.files.small, rig.smallRows, 'small');
    prefixes.push(small.prefix);
    console.error(`  feeder run ${i}/${rig.runs}: ${describeSend(small)}`);
    await deletePrefix(redis, small.prefix);
    const large = await measureSend(rig, rig.files.large, rig.rows, 'large');
    prefixes.push(large.prefix);
    console.error(`  feeder run ${i}/${rig.runs}: ${describeSend(large)}`);
    const id = large.campaignId;

    // No worker: the campaign's every row is in the backlog.
    const pauseIdle = await timeControl(empty, 'pause (no worker)', ['pause', id], large.prefix, /paused: no new send starts/);
    const resumeIdle = await timeControl(empty, 'resume (no worker)', ['resume', id], large.prefix, /resumed/);
    console.error(`  feeder run ${i}/${rig.runs}: no worker: ${describeControl(pauseIdle)}; ${describeControl(resumeIdle)}`);

    // A worker drains it into the sandbox at the product's default rate.
    const { pauseDraining, resumeDraining, cancelDraining, draining } = await measureDrainingControls(sandbox, empty, large.prefix, id);
    console.error(
      `  feeder run ${i}/${rig.runs}: worker draining at ${DRAIN_SEND_RATE}/s: ${describeControl(pauseDraining)} ` +
        `(${draining.acceptedAfterPauseReturned} sends accepted after it returned); ${describeControl(resumeDraining)} ` +
        `(next send ${draining.firstSendAfterResumeSeconds.toFixed(2)} s after it returned); ${describeControl(cancelDraining)} ` +
        `(${String(draining.cancelledAtOnce)} rows cancelled at once, ${draining.acceptedAfterCancelReturned} ` +
        `sends accepted after it returned, ` +
        `every row answered ${draining.answeredAfterCancelSeconds.toFixed(1)} s after it returned)`,
    );
    return {
      small,
      large,
      rssGrowth: large.peakRssMb / small.peakRssMb,
      pauseIdle,
      resumeIdle,
      pauseDraining,
      resumeDraining,
      cancelDraining,
      draining,
    };
  } finally {
    for (const prefix of prefixes) await deletePrefix(redis, prefix);
  }
}
