import { existsSync, mkdirSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { runToExit, startChild, stopChild, type Child } from './support/children.js';
import { coreShare, cpuSeconds, machineBusySeconds, speedProbeMs } from './support/cpu.js';
import { OUT_DIR, ensureCsv } from './support/data.js';
import { figure, fmt, type FigureSpec, type SectionResult } from './support/figures.js';
import { CAMPAIGN_BIN, ROOT, parseSendSummary, productEnv, sendArgs } from './support/product.js';
import { deletePrefix, freshPrefix } from './support/redis.js';
import type { SandboxChild } from './support/sandbox.js';
import { median, medianOf } from './support/stats.js';
import { pct } from './ingest.js';

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

/** Measured on a 1,000,000-row campaign with one BullMQ job per row written at ingest (the design the feeder replaced). */
export const JOB_PER_ROW_REDIS_MB = 962;
/** 962 MB over 1,000,000 rows (about 1 KB per row: BullMQ jobs ~870 B, ledger ~94 B). */
export const JOB_PER_ROW_REDIS_BYTES_PER_ROW = (JOB_PER_ROW_REDIS_MB * 1_000_000) / 1_000_000;
export const JOB_PER_ROW_SEND_PEAK_RSS_MB = 486;
/** Whole CLI calls (`time campaign pause|resume|cancel ID`), start-up included. */
export const JOB_PER_ROW_PAUSE_SECONDS = 22;
export const JOB_PER_ROW_RESUME_SECONDS = 74;
export const JOB_PER_ROW_CANCEL_SECONDS = 42;
const JOB_PER_ROW_LABEL = 'one job per row at ingest';

/** What the feeder must reach. */
export const TARGET_REDIS_BYTES_PER_ROW = 250;
export const TARGET_SEND_PEAK_RSS_MB = 250;
export const TARGET_INGEST_ROWS_PER_SECOND = 20_000;
export const TARGET_CONTROL_SECONDS = 1;
/**
 * "Flat in the file's size", made checkable: ten times the rows may add at most 10% to the
 * peak RSS (the hand measurement before this section existed: 196 MB → 242 MB, 1.23x).
 */
export const TARGET_RSS_GROWTH_PER_10X_ROWS = 1.1;

/** The worker during the draining controls: the product's default rate and concurrency. */
export const DRAIN_SEND_RATE = 80;
export const DRAIN_CONCURRENCY = 50;
/** Start-up calls of each kind per control, median taken: start-up is the noisier half of the difference. */
const STARTUP_SAMPLES = 3;
/** How long sends are watched after pause/cancel returned. */
const WATCH_AFTER_MS = 3000;

const GNU_TIME = '/usr/bin/time';

/**
 * Preloaded into every CLI call the controls part times (`node --import <this> bin/campaign.js …`):
 * notes when the process opens its first TCP connection (to Redis: everything before it is
 * start-up) and prints both times, in ms since the process started, on stderr as it exits.
 * Read inside the process, "first Redis connection → exit" is free of the start-up's noise.
 */
const TIMING_PRELOAD = `data:text/javascript,${encodeURIComponent(
  [
    'import net from "node:net";',
    'let connectMs = null;',
    'const connect = net.Socket.prototype.connect;',
    'net.Socket.prototype.connect = function (...args) {',
    '  const options = Array.isArray(args[0]) ? args[0][0] : args[0];',
    '  if (connectMs === null && ((typeof options === "object" && options !== null && options.port !== undefined) || typeof options === "number")) connectMs = performance.now();',
    '  return connect.apply(this, args);',
    '};',
    'process.on("exit", () => process.stderr.write(`bench-timing ${JSON.stringify({ connectMs, exitMs: performance.now() })}\\n`));',
  ].join('\n'),
)}`;

interface SendRun {
  rows: number;
  queued: number;
  campaignId: string;
  prefix: string;
  wallMs: number;
  rowsPerSecond: number;
  /** GNU time's %M: ru_maxrss of the node process, from the kernel at its exit. */
  peakRssMb: number;
  /** The highest VmHWM read from /proc/<node pid>/status while it ran (every 100 ms): a cross-check. */
  polledHwmMb: number | undefined;
  usedMemoryBefore: number;
  usedMemoryAfter: number;
  /** (used_memory after − before) / rows. */
  bytesPerRow: number;
  /** Σ MEMORY USAGE … SAMPLES 0 over the prefix's keys / rows: blind to other clients of this Redis. */
  keyBytesPerRow: number;
  /** Bytes per key pattern (the campaign ID as *), e.g. {"campaign:*:rows": 153000000}. */
  keyBytes: Record<string, number>;
  /** Keys other clients added (or removed) on this Redis during the send: > 0 means used_memory Δ is not ours alone. */
  otherKeysDelta: number;
  childCores: number | undefined;
  redisCores: number | undefined;
  machineCores: number | undefined;
  probeMs: number;
}

interface ControlCall {
  what: string;
  /** Spawn → exit of the control command. */
  callSeconds: number;
  /** Median spawn → exit of `campaign --help`, just before (node + tsx + commander; no command module, no Redis). */
  helpSeconds: number;
  /** Median spawn → exit of `campaign list` on an empty prefix, just before (start-up + config + Redis client and connection + one read). */
  listSeconds: number;
  /** callSeconds − listSeconds: the control's own cost, judged. */
  ownSeconds: number;
  /** callSeconds − helpSeconds: also the Redis client's loading and connection. */
  ownBeyondHelpSeconds: number;
  /** Inside the control's process: first Redis connection → exit (connect, the control, quit). */
  inProcessSeconds: number;
  /** The same inside `campaign list` on the empty prefix, median: what any command spends there. */
  listInProcessSeconds: number;
  output: string;
  /** Date.now() when the command exited. */
  returnedAt: number;
}

interface DrainingObservations {
  /** Messages the sandbox accepted before the draining pause. */
  acceptedBeforePause: number;
  /** Accepted with receivedAt after pause returned, within WATCH_AFTER_MS (in-flight sends finishing). */
  acceptedAfterPauseReturned: number;
  /** Seconds from resume returning to the next accepted message. */
  firstSendAfterResumeSeconds: number;
  acceptedAfterCancelReturned: number;
  /** Rows the cancel reported as cancelled at once (those still in the backlog). */
  cancelledAtOnce: number | undefined;
  /**
   * Seconds from cancel returning until `campaign status` shows nothing queued or sending:
   * the rows already fed are cancelled as the worker reaches them (polled about every second).
   */
  answeredAfterCancelSeconds: number;
  statusAfterCancel: Record<string, unknown>;
}

interface FeederRun {
  small: SendRun;
  large: SendRun;
  rssGrowth: number;
  pauseIdle: ControlCall;
  resumeIdle: ControlCall;
  pauseDraining: ControlCall;
  resumeDraining: ControlCall;
  cancelDraining: ControlCall;
  draining: DrainingObservations;
}

export async function benchFeeder(options: {
  runs: number;
  rows: number;
  redis: Redis;
  redisPid: number | undefined;
  sandbox: SandboxChild;
}): Promise<SectionResult> {
  const { redis, redisPid, sandbox } = options;
  const smallRows = Math.max(1, Math.round(options.rows / 10));
  const files = { small: await ensureCsv(smallRows), large: await ensureCsv(options.rows) };
  const tmp = join(OUT_DIR, 'tmp');
  mkdirSync(tmp, { recursive: true });
  const empty = freshPrefix('feeder-empty');

  /** `campaign send FILE` with no worker: wall time, peak RSS, Redis memory. Leaves its prefix in place. */
  const send = async (file: string, rows: number, tag: string): Promise<SendRun> => {
    const prefix = freshPrefix(`feeder-${tag}`);
    await waitForLazyFree(redis);
    const timeFile = join(tmp, `${prefix}.time`);
    const useTime = existsSync(GNU_TIME);
    const args = [process.execPath, ...sendArgs(file)];
    const [command, ...rest] = useTime ? [GNU_TIME, '-f', '%M %U %S', '-o', timeFile, ...args] : args;
    const probeMs = speedProbeMs();
    const usedMemoryBefore = await usedMemory(redis);
    const keysBefore = await redis.dbsize();
    const redisBefore = cpuSeconds(redisPid);
    const machineBefore = machineBusySeconds();
    const child = startChild(`campaign send (${rows} rows)`, command ?? process.execPath, rest, productEnv(prefix), ROOT);
    const poller = pollHighWaterMark(child.pid, useTime);
    try {
      const exit = await runToExit(child, 900_000);
      const polledHwmKb = poller.stop();
      const wallMs = exit.at - child.startedAt;
      const redisCores = coreShare(redisBefore, cpuSeconds(redisPid), wallMs);
      const machineCores = coreShare(machineBefore, machineBusySeconds(), wallMs);
      const usedMemoryAfter = await usedMemory(redis);
      const keysAfter = await redis.dbsize();
      const summary = parseSendSummary(child);
      if (summary.rows !== rows || summary.queued !== rows)
        throw new Error(`campaign send: ${summary.queued} of ${summary.rows} rows queued, expected ${rows}`);
      const keys = await keyBytes(redis, prefix, summary.id);
      const keyTotal = Object.values(keys.bytes).reduce((sum, b) => sum + b, 0);
      const [rssKb, user, sys] = useTime ? (readFileSync(timeFile, 'utf8').trim().split('\n').pop() ?? '').split(' ').map(Number) : [];
      const polledHwmMb = polledHwmKb === undefined ? undefined : polledHwmKb / 1024;
      return {
        rows,
        queued: summary.queued,
        campaignId: summary.id,
        prefix,
        wallMs,
        rowsPerSecond: rows / (wallMs / 1000),
        // Without GNU time, the polled high-water mark is the figure.
        peakRssMb: rssKb === undefined ? (polledHwmMb ?? Number.NaN) : rssKb / 1024,
        polledHwmMb,
        usedMemoryBefore,
        usedMemoryAfter,
        bytesPerRow: (usedMemoryAfter - usedMemoryBefore) / rows,
        keyBytesPerRow: keyTotal / rows,
        keyBytes: keys.bytes,
        otherKeysDelta: keysAfter - keysBefore - keys.count,
        childCores: user === undefined || sys === undefined ? undefined : (user + sys) / (wallMs / 1000),
        redisCores,
        machineCores,
        probeMs,
      };
    } finally {
      poller.stop();
      rmSync(timeFile, { force: true });
    }
  };

  /** Runs a CLI command to completion on `prefix`; seconds spawn → exit, its stdout, Date.now() at exit. */
  const cli = async (args: string[], prefix: string, okCodes: readonly number[] = [0]) => {
    const child = startChild(
      `campaign ${args[0] ?? ''}`,
      process.execPath,
      ['--import', TIMING_PRELOAD, CAMPAIGN_BIN, ...args],
      productEnv(prefix),
      ROOT,
    );
    let inProcessSeconds = Number.NaN;
    child.onLine((line, stream) => {
      if (stream !== 'stderr' || !line.startsWith('bench-timing ')) return;
      const timing = JSON.parse(line.slice('bench-timing '.length)) as { connectMs: number | null; exitMs: number };
      if (timing.connectMs !== null) inProcessSeconds = (timing.exitMs - timing.connectMs) / 1000;
    });
    const exit = await child.exited;
    const returnedAt = Date.now() - (performance.now() - exit.at);
    if (exit.code === null || !okCodes.includes(exit.code)) {
      throw new Error(`campaign ${args.join(' ')} failed (code ${String(exit.code)}, signal ${String(exit.signal)})\n${child.tail()}`);
    }
    return { seconds: (exit.at - child.startedAt) / 1000, output: child.stdout().trim(), returnedAt, inProcessSeconds };
  };

  /** One control call, with the CLI's start-up measured just before it in the same conditions. */
  const control = async (what: string, args: string[], prefix: string, expect: RegExp): Promise<ControlCall> => {
    const help: number[] = [];
    const list: number[] = [];
    const listInProcess: number[] = [];
    for (let i = 0; i < STARTUP_SAMPLES; i++) {
      help.push((await cli(['--help'], empty)).seconds);
      const listed = await cli(['list'], empty);
      if (!/No campaigns/.test(listed.output)) throw new Error(`campaign list on the empty prefix ${empty} printed: ${listed.output}`);
      list.push(listed.seconds);
      listInProcess.push(listed.inProcessSeconds);
    }
    const call = await cli(args, prefix);
    if (!expect.test(call.output)) throw new Error(`campaign ${args.join(' ')}: unexpected output: ${call.output}`);
    const helpSeconds = median(help);
    const listSeconds = median(list);
    return {
      what,
      callSeconds: call.seconds,
      helpSeconds,
      listSeconds,
      ownSeconds: call.seconds - listSeconds,
      ownBeyondHelpSeconds: call.seconds - helpSeconds,
      inProcessSeconds: call.inProcessSeconds,
      listInProcessSeconds: median(listInProcess),
      output: call.output,
      returnedAt: call.returnedAt,
    };
  };

  /** Messages the sandbox accepted with receivedAt after `since` (ms since the epoch). */
  const acceptedAfter = async (since: number) => (await sandbox.acceptedTimes()).filter((t) => t > since);

  const once = async (i: number): Promise<FeederRun> => {
    let worker: Child | undefined;
    const prefixes: string[] = [];
    try {
      const small = await send(files.small, smallRows, 'small');
      prefixes.push(small.prefix);
      console.error(`  feeder run ${i}/${options.runs}: ${describeSend(small)}`);
      await deletePrefix(redis, small.prefix);
      const large = await send(files.large, options.rows, 'large');
      prefixes.push(large.prefix);
      console.error(`  feeder run ${i}/${options.runs}: ${describeSend(large)}`);
      const id = large.campaignId;

      // No worker: the campaign's every row is in the backlog.
      const pauseIdle = await control('pause (no worker)', ['pause', id], large.prefix, /paused: no new send starts/);
      const resumeIdle = await control('resume (no worker)', ['resume', id], large.prefix, /resumed/);
      console.error(`  feeder run ${i}/${options.runs}: no worker: ${describeControl(pauseIdle)}; ${describeControl(resumeIdle)}`);

      // A worker drains it into the sandbox at the product's default rate.
      await sandbox.reset();
      const env = productEnv(large.prefix, {
        WHATSAPP_API_URL: sandbox.url,
        SEND_RATE: String(DRAIN_SEND_RATE),
        SEND_CONCURRENCY: String(DRAIN_CONCURRENCY),
      });
      worker = startChild('campaign worker', process.execPath, [CAMPAIGN_BIN, 'worker'], env, ROOT);
      await waitForAccepted(sandbox, worker, DRAIN_SEND_RATE, 120_000);

      const acceptedBeforePause = (await sandbox.stats()).accepted;
      const pauseDraining = await control('pause (worker draining)', ['pause', id], large.prefix, /paused: no new send starts/);
      await sleep(WATCH_AFTER_MS);
      const afterPause = await acceptedAfter(pauseDraining.returnedAt);

      const resumeDraining = await control('resume (worker draining)', ['resume', id], large.prefix, /resumed/);
      const firstAfterResume = await waitForAcceptedAfter(sandbox, worker, resumeDraining.returnedAt, 60_000);
      // Let it send for a moment before the cancel, so rows are in flight and fed when it lands.
      await sleep(2000);

      const cancelDraining = await control('cancel (worker draining)', ['cancel', id], large.prefix, /cancelled: \d+ rows/);
      await sleep(WATCH_AFTER_MS);
      const afterCancel = await acceptedAfter(cancelDraining.returnedAt);
      let status: Record<string, unknown> = {};
      const answerDeadline = Date.now() + 120_000;
      do {
        status = JSON.parse((await cli(['status', id, '--json'], large.prefix)).output) as Record<string, unknown>;
        if (status.queued === 0 && status.sending === 0) break;
        await sleep(300);
      } while (Date.now() < answerDeadline);
      const answeredAt = Date.now();
      await stopChild(worker);
      worker = undefined;
      if (status.state !== 'cancelled') throw new Error(`campaign status after cancel: state ${String(status.state)}, expected cancelled`);
      const draining: DrainingObservations = {
        acceptedBeforePause,
        acceptedAfterPauseReturned: afterPause.length,
        firstSendAfterResumeSeconds: (firstAfterResume - resumeDraining.returnedAt) / 1000,
        acceptedAfterCancelReturned: afterCancel.length,
        cancelledAtOnce: Number(/cancelled: (\d+) rows/.exec(cancelDraining.output)?.[1] ?? Number.NaN),
        answeredAfterCancelSeconds:
          status.queued === 0 && status.sending === 0 ? (answeredAt - cancelDraining.returnedAt) / 1000 : Number.NaN,
        statusAfterCancel: status,
      };
      console.error(
        `  feeder run ${i}/${options.runs}: worker draining at ${DRAIN_SEND_RATE}/s: ${describeControl(pauseDraining)} ` +
          `(${draining.acceptedAfterPauseReturned} sends accepted after it returned); ${describeControl(resumeDraining)} ` +
          `(next send ${draining.firstSendAfterResumeSeconds.toFixed(2)} s after it returned); ${describeControl(cancelDraining)} ` +
          `(${String(draining.cancelledAtOnce)} rows cancelled at once, ${draining.acceptedAfterCancelReturned} sends accepted after it returned, ` +
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
      if (worker !== undefined) await stopChild(worker);
      for (const prefix of prefixes) await deletePrefix(redis, prefix);
    }
  };

  // Warm-up, not recorded: fills tsx's transform cache for the CLI's import graph.
  await cli(['--help'], empty);
  await cli(['list'], empty);
  const measured: FeederRun[] = [];
  try {
    for (let i = 1; i <= options.runs; i++) measured.push(await once(i));
  } finally {
    await deletePrefix(redis, empty);
  }

  const n = options.rows.toLocaleString('en-US');
  const nSmall = smallRows.toLocaleString('en-US');
  const perRun = (pick: (r: FeederRun) => number) => measured.map(pick);
  /** A figure beside its one-job-per-row value (or none: NaN prints n/a). */
  const vsBefore = (spec: Omit<FigureSpec, 'baseline' | 'baselineLabel'> & { before: number }) => {
    const { before, ...rest } = spec;
    return figure({ ...rest, baseline: Number.isFinite(before) ? [before] : [], baselineLabel: JOB_PER_ROW_LABEL });
  };
  const controlFigures = (what: string, pick: (r: FeederRun) => ControlCall, before: number, withWholeCall: boolean) => [
    ...(withWholeCall
      ? [
          vsBefore({
            label: `${what}: whole CLI call`,
            unit: 's',
            ours: perRun((r) => pick(r).callSeconds),
            before,
            judgedOn: 'median',
            target: 'context (start-up included)',
            check: () => [],
            digits: 2,
            informational: true,
          }),
        ]
      : []),
    vsBefore({
      label: `${what}: own cost (call − list)`,
      unit: 's',
      ours: perRun((r) => pick(r).ownSeconds),
      before,
      judgedOn: 'median',
      target: `< ${TARGET_CONTROL_SECONDS} s`,
      check: (value) => (value < TARGET_CONTROL_SECONDS ? [] : [`>= ${TARGET_CONTROL_SECONDS} s`]),
      digits: 2,
    }),
    vsBefore({
      label: `${what}: in the CLI, Redis connect → exit`,
      unit: 's',
      ours: perRun((r) => pick(r).inProcessSeconds),
      before: Number.NaN,
      judgedOn: 'median',
      target: `< ${TARGET_CONTROL_SECONDS} s`,
      check: (value) => (value < TARGET_CONTROL_SECONDS ? [] : [`>= ${TARGET_CONTROL_SECONDS} s`]),
      digits: 3,
    }),
  ];
  const controls = (r: FeederRun) => [r.pauseIdle, r.resumeIdle, r.pauseDraining, r.resumeDraining, r.cancelDraining];
  const median2 = (pick: (r: FeederRun) => number) => medianOf(measured, pick).toFixed(2);
  const sendCpu = (pick: (r: FeederRun) => SendRun) =>
    `process ${pct(medianOf(measured, (r) => pick(r).childCores))}, redis ${pct(medianOf(measured, (r) => pick(r).redisCores))}, ` +
    `whole machine ${pct(medianOf(measured, (r) => pick(r).machineCores))}`;

  return {
    section: 'feeder',
    columns: { ours: 'now', baseline: JOB_PER_ROW_LABEL, ratio: 'change' },
    figures: [
      vsBefore({
        label: `send ${n} rows, no worker (start-up incl.)`,
        unit: 'rows/s',
        ours: perRun((r) => r.large.rowsPerSecond),
        before: Number.NaN,
        judgedOn: 'median',
        target: `>= ${fmt(TARGET_INGEST_ROWS_PER_SECOND)} rows/s`,
        check: (value) => (value >= TARGET_INGEST_ROWS_PER_SECOND ? [] : [`< ${fmt(TARGET_INGEST_ROWS_PER_SECOND)} rows/s`]),
      }),
      vsBefore({
        label: `send ${n} rows: peak RSS`,
        unit: 'MB',
        ours: perRun((r) => r.large.peakRssMb),
        before: JOB_PER_ROW_SEND_PEAK_RSS_MB,
        judgedOn: 'median',
        target: `< ${TARGET_SEND_PEAK_RSS_MB} MB`,
        check: (value) => (value < TARGET_SEND_PEAK_RSS_MB ? [] : [`>= ${TARGET_SEND_PEAK_RSS_MB} MB`]),
      }),
      vsBefore({
        label: `send ${nSmall} rows: peak RSS`,
        unit: 'MB',
        ours: perRun((r) => r.small.peakRssMb),
        before: Number.NaN,
        judgedOn: 'median',
        target: `< ${TARGET_SEND_PEAK_RSS_MB} MB`,
        check: (value) => (value < TARGET_SEND_PEAK_RSS_MB ? [] : [`>= ${TARGET_SEND_PEAK_RSS_MB} MB`]),
      }),
      vsBefore({
        label: `peak RSS ${n} / ${nSmall} rows`,
        unit: 'x',
        ours: perRun((r) => r.rssGrowth),
        before: Number.NaN,
        judgedOn: 'median',
        target: `<= ${TARGET_RSS_GROWTH_PER_10X_ROWS.toFixed(2)}x (flat in the file's size)`,
        check: (value) => (value <= TARGET_RSS_GROWTH_PER_10X_ROWS ? [] : [`grows ${value.toFixed(2)}x`]),
        digits: 2,
      }),
      vsBefore({
        label: 'Redis per pending row (used_memory Δ)',
        unit: 'B',
        ours: perRun((r) => r.large.bytesPerRow),
        before: JOB_PER_ROW_REDIS_BYTES_PER_ROW,
        judgedOn: 'median',
        target: `<= ${TARGET_REDIS_BYTES_PER_ROW} B`,
        check: (value) => (value <= TARGET_REDIS_BYTES_PER_ROW ? [] : [`> ${TARGET_REDIS_BYTES_PER_ROW} B`]),
      }),
      vsBefore({
        label: 'Redis per pending row (MEMORY USAGE of its keys)',
        unit: 'B',
        ours: perRun((r) => r.large.keyBytesPerRow),
        before: JOB_PER_ROW_REDIS_BYTES_PER_ROW,
        judgedOn: 'median',
        target: `<= ${TARGET_REDIS_BYTES_PER_ROW} B`,
        check: (value) => (value <= TARGET_REDIS_BYTES_PER_ROW ? [] : [`> ${TARGET_REDIS_BYTES_PER_ROW} B`]),
      }),
      vsBefore({
        label: 'CLI start-up: campaign --help',
        unit: 's',
        ours: perRun((r) => median(controls(r).map((c) => c.helpSeconds))),
        before: Number.NaN,
        judgedOn: 'median',
        target: 'context',
        check: () => [],
        digits: 2,
        informational: true,
      }),
      vsBefore({
        label: 'CLI start-up + Redis: list, empty prefix',
        unit: 's',
        ours: perRun((r) => median(controls(r).map((c) => c.listSeconds))),
        before: Number.NaN,
        judgedOn: 'median',
        target: 'context (subtracted below)',
        check: () => [],
        digits: 2,
        informational: true,
      }),
      vsBefore({
        label: 'list, empty prefix: in the CLI, Redis connect → exit',
        unit: 's',
        ours: perRun((r) => median(controls(r).map((c) => c.listInProcessSeconds))),
        before: Number.NaN,
        judgedOn: 'median',
        target: 'context',
        check: () => [],
        digits: 3,
        informational: true,
      }),
      ...controlFigures(`pause ${n}, no worker`, (r) => r.pauseIdle, JOB_PER_ROW_PAUSE_SECONDS, true),
      ...controlFigures(`resume ${n}, no worker`, (r) => r.resumeIdle, JOB_PER_ROW_RESUME_SECONDS, true),
      ...controlFigures(`pause ${n}, worker draining`, (r) => r.pauseDraining, JOB_PER_ROW_PAUSE_SECONDS, false),
      ...controlFigures(`resume ${n}, worker draining`, (r) => r.resumeDraining, JOB_PER_ROW_RESUME_SECONDS, false),
      ...controlFigures(`cancel ${n}, worker draining`, (r) => r.cancelDraining, JOB_PER_ROW_CANCEL_SECONDS, true),
    ],
    runs: measured.map((r) => ({ ...r })),
    method: [
      `feeder: per run, on fresh QUEUE_PREFIXes and with no worker running, \`campaign send FILE --template order_update --language en_US ` +
        `--params first_name,order_id --phone-number-id ID --json\` of ${nSmall} and then ${n} generated valid rows (phone,first_name,order_id,city; ` +
        `DUPLICATE_WINDOW_HOURS at its default), each a child process timed spawn → exit (node + tsx start-up included). Peak RSS: GNU time's %M ` +
        `(ru_maxrss of the node process, reported by the kernel when it exits), cross-checked by polling VmHWM in /proc/<pid>/status every 100 ms. ` +
        `Redis per pending row: (INFO used_memory after − before) / rows, read once lazy frees of earlier runs have finished; beside it ` +
        `Σ MEMORY USAGE … SAMPLES 0 over the campaign prefix's keys / rows, which other clients of the same Redis cannot disturb.`,
      `feeder controls: on the ${n}-row campaign, \`campaign pause ID\` and \`campaign resume ID\` with no worker; then \`campaign worker\` ` +
        `(SEND_RATE=${DRAIN_SEND_RATE}, SEND_CONCURRENCY=${DRAIN_CONCURRENCY}) drains it into \`campaign sandbox --mps 0\` and, once ${DRAIN_SEND_RATE} ` +
        `messages arrived, pause, resume and cancel while it runs. Each call is timed spawn → exit; just before it, in the same conditions, ` +
        `the CLI's start-up: median of ${STARTUP_SAMPLES} \`campaign list\` on an empty prefix (node + tsx + config + Redis client and connection + ` +
        `one read: all a control does but the control) and of ${STARTUP_SAMPLES} \`campaign --help\` (node + tsx + commander only). ` +
        `Own cost = call − \`list\` median; judged < ${TARGET_CONTROL_SECONDS} s. Every CLI call here runs with a preload ` +
        `(\`node --import data:… bin/campaign.js\`) that notes when the process opens its first TCP connection (Redis) and when it exits: ` +
        `"in the CLI, Redis connect → exit" is the control (connection, script, quit) measured inside its own process, free of the start-up's noise; ` +
        `also judged < ${TARGET_CONTROL_SECONDS} s. ` +
        `The one-job-per-row figures are whole CLI calls on 1M rows with one BullMQ job per row written at ingest (start-up included).`,
    ],
    notes: [
      `feeder: wall time of \`campaign send\`, median: ${nSmall} rows ${median2((r) => r.small.wallMs / 1000)} s, ${n} rows ${median2((r) => r.large.wallMs / 1000)} s; ` +
        `CPU over spawn → exit: ${nSmall}: ${sendCpu((r) => r.small)} | ${n}: ${sendCpu((r) => r.large)}`,
      `feeder: peak RSS per run, GNU time | polled VmHWM (MB): ${measured
        .map(
          (r) =>
            `${nSmall}: ${fmt(r.small.peakRssMb)} | ${fmtOpt(r.small.polledHwmMb)}, ${n}: ${fmt(r.large.peakRssMb)} | ${fmtOpt(r.large.polledHwmMb)}`,
        )
        .join('; ')}`,
      `feeder: Redis per pending row at ${nSmall} rows (used_memory Δ | keys): ${measured.map((r) => `${fmt(r.small.bytesPerRow)} | ${fmt(r.small.keyBytesPerRow)} B`).join(', ')}; ` +
        `at ${n}, bytes per row by key: ${measured.map((r) => JSON.stringify(perRow(r.large.keyBytes, r.large.rows))).join(', ')}; ` +
        `keys other clients added during the ${n}-row send: [${measured.map((r) => r.large.otherKeysDelta).join(', ')}] (non-zero: used_memory Δ includes others' data)`,
      `feeder: call − \`campaign --help\` instead (the README's hand method, which also counts loading the Redis client and connecting), median: ` +
        `pause ${median2((r) => r.pauseIdle.ownBeyondHelpSeconds)} s, resume ${median2((r) => r.resumeIdle.ownBeyondHelpSeconds)} s (no worker); ` +
        `pause ${median2((r) => r.pauseDraining.ownBeyondHelpSeconds)} s, resume ${median2((r) => r.resumeDraining.ownBeyondHelpSeconds)} s, ` +
        `cancel ${median2((r) => r.cancelDraining.ownBeyondHelpSeconds)} s (worker draining)`,
      `feeder, worker draining at ${DRAIN_SEND_RATE}/s: sends the sandbox accepted after pause returned (in-flight ones finishing), per run ` +
        `[${measured.map((r) => r.draining.acceptedAfterPauseReturned).join(', ')}] within ${WATCH_AFTER_MS / 1000} s; next send after resume returned ` +
        `[${measured.map((r) => `${r.draining.firstSendAfterResumeSeconds.toFixed(2)} s`).join(', ')}]; rows cancelled at once ` +
        `[${measured.map((r) => String(r.draining.cancelledAtOnce)).join(', ')}], sends accepted after cancel returned ` +
        `[${measured.map((r) => r.draining.acceptedAfterCancelReturned).join(', ')}], every row answered (nothing queued or sending) after ` +
        `[${measured.map((r) => `${r.draining.answeredAfterCancelSeconds.toFixed(1)} s`).join(', ')}]; state after cancel ` +
        `[${measured.map((r) => `${String(r.draining.statusAfterCancel.state)}: sent ${String(r.draining.statusAfterCancel.sent)}, cancelled ${String(r.draining.statusAfterCancel.cancelled)}, queued ${String(r.draining.statusAfterCancel.queued)}`).join('; ')}]`,
      `feeder: machine speed probe before each ${n}-row send (ms for a fixed hash loop, lower = faster): [${measured.map((r) => Math.round(r.large.probeMs)).join(', ')}]. ` +
        `The send ratio against the bare worker is the drain figure above (the worker feeds itself from the backlog there).`,
    ],
  };
}

function describeSend(run: SendRun): string {
  return (
    `send ${run.rows} rows ${(run.wallMs / 1000).toFixed(1)} s (${Math.round(run.rowsPerSecond)} rows/s), peak RSS ${Math.round(run.peakRssMb)} MB ` +
    `(polled VmHWM ${fmtOpt(run.polledHwmMb)} MB), Redis ${Math.round(run.bytesPerRow)} B/row used_memory Δ, ${Math.round(run.keyBytesPerRow)} B/row in its keys; ` +
    `CPU: child ${pct(run.childCores)}, redis ${pct(run.redisCores)}, machine ${pct(run.machineCores)}`
  );
}

function describeControl(call: ControlCall): string {
  return `${call.what} ${call.callSeconds.toFixed(2)} s − start-up (list) ${call.listSeconds.toFixed(2)} s = ${call.ownSeconds.toFixed(2)} s (--help ${call.helpSeconds.toFixed(2)} s)`;
}

const fmtOpt = (value: number | undefined) => (value === undefined ? 'n/a' : fmt(value));

const perRow = (bytes: Record<string, number>, rows: number) =>
  Object.fromEntries(Object.entries(bytes).map(([key, b]) => [key, Number((b / rows).toFixed(1))]));

async function usedMemory(redis: Redis): Promise<number> {
  const value = /^used_memory:(\d+)/m.exec(await redis.info('memory'))?.[1];
  if (value === undefined) throw new Error('INFO memory has no used_memory');
  return Number(value);
}

/**
 * Waits until Redis has freed what earlier runs UNLINKed (freed in the background): a free
 * running during a send would lower its used_memory Δ.
 */
async function waitForLazyFree(redis: Redis): Promise<void> {
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const pending = /^lazyfree_pending_objects:(\d+)/m.exec(await redis.info('memory'))?.[1];
    if (pending === undefined || pending === '0') return;
    await sleep(100);
  }
}

/** MEMORY USAGE … SAMPLES 0 (every element counted) of every key under `prefix`, grouped with the campaign ID as *. */
async function keyBytes(redis: Redis, prefix: string, campaignId: string): Promise<{ bytes: Record<string, number>; count: number }> {
  const bytes: Record<string, number> = {};
  let count = 0;
  let cursor = '0';
  do {
    const [next, keys] = await redis.scan(cursor, 'MATCH', `${prefix}:*`, 'COUNT', 1000);
    cursor = next;
    for (const key of keys) {
      const usage = Number(await redis.call('MEMORY', 'USAGE', key, 'SAMPLES', '0'));
      const pattern = key
        .slice(prefix.length + 1)
        .split(campaignId)
        .join('*');
      bytes[pattern] = (bytes[pattern] ?? 0) + (Number.isFinite(usage) ? usage : 0);
      count++;
    }
  } while (cursor !== '0');
  return { bytes, count };
}

/**
 * Polls VmHWM (the kernel's peak-RSS mark) of the node process every 100 ms; `stop()` returns
 * the highest value read (KiB). Under GNU time, node is time's child, found through
 * /proc/<pid>/task/<pid>/children. A cross-check of GNU time, and the figure where it is missing.
 */
function pollHighWaterMark(pid: number, viaTime: boolean): { stop(): number | undefined } {
  let highest: number | undefined;
  let nodePid: number | undefined = viaTime ? undefined : pid;
  const read = () => {
    try {
      nodePid ??= Number(readFileSync(`/proc/${pid}/task/${pid}/children`, 'utf8').trim().split(/\s+/)[0]) || undefined;
      if (nodePid === undefined) return;
      const kb = Number(/^VmHWM:\s+(\d+) kB/m.exec(readFileSync(`/proc/${nodePid}/status`, 'utf8'))?.[1]);
      if (Number.isFinite(kb)) highest = Math.max(highest ?? 0, kb);
    } catch {
      // Not started yet, already gone, or no /proc: keep what was read.
    }
  };
  const timer = setInterval(read, 100);
  let stopped = false;
  return {
    stop: () => {
      if (!stopped) clearInterval(timer);
      stopped = true;
      return highest;
    },
  };
}

/** Waits until the sandbox has accepted at least `count` messages. */
async function waitForAccepted(sandbox: SandboxChild, worker: Child, count: number, timeoutMs: number): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void worker.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    if ((await sandbox.stats()).accepted >= count) return;
    await sleep(50);
  }
  throw new Error(
    `${worker.name}: fewer than ${count} messages reached the sandbox${exited ? ' (it exited)' : ` within ${timeoutMs} ms`}\n${worker.tail()}`,
  );
}

/** Waits for the first message accepted after `since` (ms since the epoch); returns its receivedAt. */
async function waitForAcceptedAfter(sandbox: SandboxChild, worker: Child, since: number, timeoutMs: number): Promise<number> {
  const deadline = Date.now() + timeoutMs;
  let exited = false;
  void worker.exited.then(() => (exited = true));
  while (Date.now() < deadline && !exited) {
    const first = (await sandbox.acceptedTimes()).find((t) => t > since);
    if (first !== undefined) return first;
    await sleep(20);
  }
  throw new Error(
    `${worker.name}: no message reached the sandbox after resume${exited ? ' (it exited)' : ` within ${timeoutMs} ms`}\n${worker.tail()}`,
  );
}
