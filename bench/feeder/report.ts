import { figure, fmt, type Figure, type FigureSpec, type SectionResult } from '../support/figures.js';
import { median, medianOf } from '../support/stats.js';
import { pct } from '../ingest.js';
import {
  DRAIN_CONCURRENCY,
  DRAIN_SEND_RATE,
  JOB_PER_ROW_CANCEL_SECONDS,
  JOB_PER_ROW_LABEL,
  JOB_PER_ROW_PAUSE_SECONDS,
  JOB_PER_ROW_REDIS_BYTES_PER_ROW,
  JOB_PER_ROW_RESUME_SECONDS,
  JOB_PER_ROW_SEND_PEAK_RSS_MB,
  STARTUP_SAMPLES,
  TARGET_CONTROL_SECONDS,
  TARGET_INGEST_ROWS_PER_SECOND,
  TARGET_REDIS_BYTES_PER_ROW,
  TARGET_RSS_GROWTH_PER_10X_ROWS,
  TARGET_SEND_PEAK_RSS_MB,
  WATCH_AFTER_MS,
} from './targets.js';
import type { ControlCall, FeederRun, SendRun } from './types.js';

/** The feeder section's table lines, method and notes from its measured runs. */
export function feederResult(measured: FeederRun[], rows: number, smallRows: number): SectionResult {
  const n = rows.toLocaleString('en-US');
  const nSmall = smallRows.toLocaleString('en-US');
  return {
    section: 'feeder',
    columns: { ours: 'now', baseline: JOB_PER_ROW_LABEL, ratio: 'change' },
    figures: [
      ...sendFigures(measured, n, nSmall),
      ...startupFigures(measured),
      ...controlFigures(measured, `pause ${n}, no worker`, (r) => r.pauseIdle, JOB_PER_ROW_PAUSE_SECONDS, true),
      ...controlFigures(measured, `resume ${n}, no worker`, (r) => r.resumeIdle, JOB_PER_ROW_RESUME_SECONDS, true),
      ...controlFigures(measured, `pause ${n}, worker draining`, (r) => r.pauseDraining, JOB_PER_ROW_PAUSE_SECONDS, false),
      ...controlFigures(measured, `resume ${n}, worker draining`, (r) => r.resumeDraining, JOB_PER_ROW_RESUME_SECONDS, false),
      ...controlFigures(measured, `cancel ${n}, worker draining`, (r) => r.cancelDraining, JOB_PER_ROW_CANCEL_SECONDS, true),
    ],
    runs: measured.map((r) => ({ ...r })),
    method: feederMethod(n, nSmall),
    notes: feederNotes(measured, n, nSmall),
  };
}

/** A figure beside its one-job-per-row value (or none: NaN prints n/a). */
function vsBefore(spec: Omit<FigureSpec, 'baseline' | 'baselineLabel'> & { before: number }): Figure {
  const { before, ...rest } = spec;
  return figure({ ...rest, baseline: Number.isFinite(before) ? [before] : [], baselineLabel: JOB_PER_ROW_LABEL });
}

function controlFigures(
  measured: FeederRun[],
  what: string,
  pick: (r: FeederRun) => ControlCall,
  before: number,
  withWholeCall: boolean,
): Figure[] {
  const perRun = (value: (r: FeederRun) => number) => measured.map(value);
  return [
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
}

/** `campaign send` of the two sizes: throughput, peak RSS and its growth, Redis bytes per pending row. */
function sendFigures(measured: FeederRun[], n: string, nSmall: string): Figure[] {
  const perRun = (pick: (r: FeederRun) => number) => measured.map(pick);
  return [
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
  ];
}

/** The CLI's start-up, subtracted from each control call: context, not judged. */
function startupFigures(measured: FeederRun[]): Figure[] {
  const perRun = (pick: (r: FeederRun) => number) => measured.map(pick);
  const controls = (r: FeederRun) => [r.pauseIdle, r.resumeIdle, r.pauseDraining, r.resumeDraining, r.cancelDraining];
  return [
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
  ];
}

function feederMethod(n: string, nSmall: string): string[] {
  return [
    `feeder: per run, on fresh QUEUE_PREFIXes and with no worker running, \`campaign send FILE --template order_update --language en_US ` +
      `--params first_name,order_id --phone-number-id ID --json\` of ${nSmall} and then ${n} ` +
      `generated valid rows (phone,first_name,order_id,city; ` +
      `DUPLICATE_WINDOW_HOURS at its default), each a child process timed spawn → exit (node ` +
      `+ tsx start-up included). Peak RSS: GNU time's %M ` +
      `(ru_maxrss of the node process, reported by the kernel when it exits), cross-checked ` +
      `by polling VmHWM in /proc/<pid>/status every 100 ms. ` +
      `Redis per pending row: (INFO used_memory after − before) / rows, read once lazy frees of earlier runs have finished; beside it ` +
      `Σ MEMORY USAGE … SAMPLES 0 over the campaign prefix's keys / rows, which other clients of the same Redis cannot disturb.`,
    `feeder controls: on the ${n}-row campaign, \`campaign pause ID\` and \`campaign resume ` +
      `ID\` with no worker; then \`campaign worker\` ` +
      `(SEND_RATE=${DRAIN_SEND_RATE}, SEND_CONCURRENCY=${DRAIN_CONCURRENCY}) drains it into ` +
      `\`campaign sandbox --mps 0\` and, once ${DRAIN_SEND_RATE} ` +
      `messages arrived, pause, resume and cancel while it runs. Each call is timed spawn ` +
      `→ exit; just before it, in the same conditions, ` +
      `the CLI's start-up: median of ${STARTUP_SAMPLES} \`campaign list\` on an empty prefix ` +
      `(node + tsx + config + Redis client and connection + ` +
      `one read: all a control does but the control) and of ${STARTUP_SAMPLES} \`campaign --help\` (node + tsx + commander only). ` +
      `Own cost = call − \`list\` median; judged < ${TARGET_CONTROL_SECONDS} s. Every CLI call here runs with a preload ` +
      `(\`node --import data:… bin/campaign.js\`) that notes when the process opens its first TCP connection (Redis) and when it exits: ` +
      `"in the CLI, Redis connect → exit" is the control (connection, script, quit) measured ` +
      `inside its own process, free of the start-up's noise; ` +
      `also judged < ${TARGET_CONTROL_SECONDS} s. ` +
      `The one-job-per-row figures are whole CLI calls on 1M rows with one BullMQ job per row written at ingest (start-up included).`,
  ];
}

function feederNotes(measured: FeederRun[], n: string, nSmall: string): string[] {
  const median2 = (pick: (r: FeederRun) => number) => medianOf(measured, pick).toFixed(2);
  const sendCpu = (pick: (r: FeederRun) => SendRun) =>
    `process ${pct(medianOf(measured, (r) => pick(r).childCores))}, redis ${pct(medianOf(measured, (r) => pick(r).redisCores))}, ` +
    `whole machine ${pct(medianOf(measured, (r) => pick(r).machineCores))}`;
  return [
    `feeder: wall time of \`campaign send\`, median: ${nSmall} rows ${median2((r) => r.small.wallMs / 1000)} ` +
      `s, ${n} rows ${median2((r) => r.large.wallMs / 1000)} s; ` +
      `CPU over spawn → exit: ${nSmall}: ${sendCpu((r) => r.small)} | ${n}: ${sendCpu((r) => r.large)}`,
    `feeder: peak RSS per run, GNU time | polled VmHWM (MB): ${measured
      .map(
        (r) =>
          `${nSmall}: ${fmt(r.small.peakRssMb)} | ${fmtOpt(r.small.polledHwmMb)}, ${n}: ` +
          `${fmt(r.large.peakRssMb)} | ${fmtOpt(r.large.polledHwmMb)}`,
      )
      .join('; ')}`,
    `feeder: Redis per pending row at ${nSmall} rows (used_memory Δ | keys): ` +
      `${measured.map((r) => `${fmt(r.small.bytesPerRow)} | ${fmt(r.small.keyBytesPerRow)} B`).join(', ')}; ` +
      `at ${n}, bytes per row by key: ${measured.map((r) => JSON.stringify(perRow(r.large.keyBytes, r.large.rows))).join(', ')}; ` +
      `keys other clients added during the ${n}-row send: [${measured.map((r) => r.large.otherKeysDelta).join(', ')}] ` +
      `(non-zero: used_memory Δ includes others' data)`,
    `feeder: call − \`campaign --help\` instead (the README's hand method, which also counts ` +
      `loading the Redis client and connecting), median: ` +
      `pause ${median2((r) => r.pauseIdle.ownBeyondHelpSeconds)} s, resume ` +
      `${median2((r) => r.resumeIdle.ownBeyondHelpSeconds)} s (no worker); ` +
      `pause ${median2((r) => r.pauseDraining.ownBeyondHelpSeconds)} s, resume ` +
      `${median2((r) => r.resumeDraining.ownBeyondHelpSeconds)} s, ` +
      `cancel ${median2((r) => r.cancelDraining.ownBeyondHelpSeconds)} s (worker draining)`,
    `feeder, worker draining at ${DRAIN_SEND_RATE}/s: sends the sandbox accepted after pause ` +
      `returned (in-flight ones finishing), per run ` +
      `[${measured.map((r) => r.draining.acceptedAfterPauseReturned).join(', ')}] within ` +
      `${WATCH_AFTER_MS / 1000} s; next send after resume returned ` +
      `[${measured.map((r) => `${r.draining.firstSendAfterResumeSeconds.toFixed(2)} s`).join(', ')}]; rows cancelled at once ` +
      `[${measured.map((r) => String(r.draining.cancelledAtOnce)).join(', ')}], sends accepted after cancel returned ` +
      `[${measured.map((r) => r.draining.acceptedAfterCancelReturned).join(', ')}], every row answered (nothing queued or sending) after ` +
      `[${measured.map((r) => `${r.draining.answeredAfterCancelSeconds.toFixed(1)} s`).join(', ')}]; state after cancel ` +
      `[${measured.map((r) => describeStatusAfterCancel(r.draining.statusAfterCancel)).join('; ')}]`,
    `feeder: machine speed probe before each ${n}-row send (ms for a fixed hash loop, lower = faster): ` +
      `[${measured.map((r) => Math.round(r.large.probeMs)).join(', ')}]. ` +
      `The send ratio against the bare worker is the drain figure above (the worker feeds itself from the backlog there).`,
  ];
}

/** A campaign's state and counts as `campaign status` gave them right after cancel returned. */
function describeStatusAfterCancel(status: Record<string, unknown>): string {
  return (
    `${String(status.state)}: sent ${String(status.sent)}, cancelled ${String(status.cancelled)}, ` + `queued ${String(status.queued)}`
  );
}

export function describeSend(run: SendRun): string {
  return (
    `send ${run.rows} rows ${(run.wallMs / 1000).toFixed(1)} s (${Math.round(run.rowsPerSecond)} ` +
    `rows/s), peak RSS ${Math.round(run.peakRssMb)} MB ` +
    `(polled VmHWM ${fmtOpt(run.polledHwmMb)} MB), Redis ${Math.round(run.bytesPerRow)} B/row ` +
    `used_memory Δ, ${Math.round(run.keyBytesPerRow)} B/row in its keys; ` +
    `CPU: child ${pct(run.childCores)}, redis ${pct(run.redisCores)}, machine ${pct(run.machineCores)}`
  );
}

export function describeControl(call: ControlCall): string {
  return (
    `${call.what} ${call.callSeconds.toFixed(2)} s − start-up (list) ${call.listSeconds.toFixed(2)} s = ` +
    `${call.ownSeconds.toFixed(2)} s (--help ${call.helpSeconds.toFixed(2)} s)`
  );
}

export const fmtOpt = (value: number | undefined) => (value === undefined ? 'n/a' : fmt(value));

const perRow = (bytes: Record<string, number>, rows: number) =>
  Object.fromEntries(Object.entries(bytes).map(([key, b]) => [key, Number((b / rows).toFixed(1))]));
