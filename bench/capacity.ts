import { writeFileSync, mkdirSync } from 'node:fs';
import { cpus } from 'node:os';
import { join } from 'node:path';
import { CHECK_NUMBERS, CHECK_RATE, checkRun, type CheckRun } from './capacity/cluster-check.js';
import {
  MAX_RATE_PER_NUMBER,
  PEAK_HOURS,
  modelInputsText,
  modelLine,
  modelTable,
  predictedOnCores,
  type ModelInputs,
} from './capacity/model.js';
import { startPrivateRedis } from './capacity/private-redis.js';
import { perMessageText } from './capacity/redis-stats.js';
import { COST_ROWS, STATUSES_PER_MESSAGE, measureSendCost, type SendCostRun } from './capacity/send-cost.js';
import { OUT_DIR } from './support/data.js';
import { figure, fmt, type Figure, type SectionResult } from './support/figures.js';
import { startSandboxChild } from './support/sandbox.js';
import { median } from './support/stats.js';

/**
 * Capacity: the costs per message a capacity model needs, measured, then the model's table
 * for 1M, 10M and 100M messages a day (bench/capacity/model.ts has the formula), then one
 * line of it checked by a run: CHECK_NUMBERS numbers at CHECK_RATE/s on a 3-master cluster.
 * Prints the table for docs/performance.md and writes it to bench/out/capacity.md.
 */
export async function benchCapacity(options: { runs: number }): Promise<SectionResult> {
  const costs = await measureCosts(options.runs);
  const unpaced = inputsOf(costs);
  const checkWorkers = Math.min(4, modelLine(CHECK_NUMBERS * CHECK_RATE * PEAK_HOURS * 3600, unpaced).workers);
  console.error(`  capacity check run: ${CHECK_NUMBERS} numbers × ${CHECK_RATE}/s, ${checkWorkers} worker process(es), 3 masters`);
  const check = await checkRun(checkWorkers);
  console.error(
    `  capacity check run: ${fmt(check.total.rate)} msg/s in all; per number ` +
      `${check.perNumber.map((n) => `${fmt(n.rate, 1)} (busiest ${n.busiest})`).join(', ')}; load ${check.load.after.join('/')}`,
  );
  // The model takes the dearer of the unpaced drain and the paced, clustered check run for each cost.
  const clusterRedisPerMessage = check.redis.cpuSeconds / check.total.accepted;
  const inputs: ModelInputs = {
    ...unpaced,
    workerCpuPerMessage: Math.max(unpaced.workerCpuPerMessage, check.workerCpuSecondsPer1000 / 1000),
    redisCpuPerMessage: Math.max(unpaced.redisCpuPerMessage, clusterRedisPerMessage),
  };
  const sandboxPerMessage = median(costs.map((c) => c.sandboxCpuSecondsPer1000)) / 1000;
  // The pacer keeps each number 2.5% under its rate; the model cannot predict more than that.
  const ceiling = CHECK_NUMBERS * CHECK_RATE * 0.975;
  const predicted = Math.min(ceiling, predictedOnCores(cpus().length, inputs, sandboxPerMessage));
  // On a shared machine, what others used during the window was not ours to use.
  const coresLeft = Math.max(0, cpus().length - check.cores.others);
  const predictedLeft = Math.min(ceiling, predictedOnCores(coresLeft, inputs, sandboxPerMessage));
  const table = [
    ...modelTable(inputs),
    '',
    ...modelInputsText(inputs).map((l) => `- ${l}`),
    `- this machine (${cpus().length} cores, the simulated Meta on them too, at ${fmt(sandboxPerMessage * 1e6)} µs a message): ` +
      `the model predicts ${fmt(predicted)} msg/s on all of them, ${fmt(predictedLeft)} msg/s on the ${fmt(coresLeft, 2)} ` +
      `cores others left during the check run (load ${check.load.before.join('/')} → ${check.load.after.join('/')}); ` +
      `the check run reached ${fmt(check.total.rate)} msg/s`,
  ];
  mkdirSync(OUT_DIR, { recursive: true });
  writeFileSync(join(OUT_DIR, 'capacity.md'), `${table.join('\n')}\n`);
  console.error(`\ncapacity model (also in bench/out/capacity.md):\n${table.join('\n')}\n`);
  return {
    section: 'capacity',
    figures: [...costFigures(costs), ...checkFigures(check, predicted, predictedLeft)],
    runs: [...costs.map((c) => ({ phase: 'cost', ...c })), { phase: 'check', ...check }],
    method: method(checkWorkers),
    notes: [...table, ...costNotes(costs), ...checkNotes(check)],
  };
}

async function measureCosts(runs: number): Promise<SendCostRun[]> {
  const redis = await startPrivateRedis();
  const sandbox = await startSandboxChild();
  try {
    const costs: SendCostRun[] = [];
    for (let i = 0; i < runs; i++) {
      const run = await measureSendCost(redis, sandbox);
      costs.push(run);
      console.error(
        `  capacity cost run ${i + 1}/${runs}: worker ${fmt(run.worker.cpuSecondsPer1000, 3)} CPU s per 1,000 ` +
          `(${fmt(run.worker.messagesPerSecond)} msg/s); Redis ${fmt(run.sendRedis.totalCalls / run.rows, 1)} commands a message; ` +
          `${fmt(run.statuses.perSecond)} statuses/s; kept ${fmt(run.keptBytesPerRow)} B a row; load ${run.load.join(' → ')}`,
      );
    }
    return costs;
  } finally {
    await sandbox.stop();
    await redis.stop();
  }
}

function inputsOf(costs: readonly SendCostRun[]): ModelInputs {
  const m = (pick: (c: SendCostRun) => number) => median(costs.map(pick));
  return {
    workerCpuPerMessage: m((c) => c.worker.cpuSecondsPer1000) / 1000,
    serveCpuPerStatus: m((c) => c.statuses.serveCpuSecondsPer1000) / 1000,
    statusesPerMessage: STATUSES_PER_MESSAGE,
    redisCpuPerMessage: m((c) => c.sendRedis.cpuSeconds / c.rows),
    redisCpuPerStatus: m((c) => c.statuses.redis.cpuSeconds / c.statuses.events),
    keptBytesPerRow: m((c) => c.keptByClass.retained),
    windowBytesPerRow: m((c) => c.keptByClass.window),
    pendingBytesPerRow: m((c) => c.pendingBytesPerRow),
  };
}

const info = (label: string, unit: string, values: number[], digits = 0): Figure =>
  figure({
    label,
    unit,
    ours: values,
    baseline: [],
    baselineLabel: 'measured input',
    judgedOn: 'median',
    target: 'model input',
    informational: true,
    digits,
    check: () => [],
  });

function costFigures(costs: readonly SendCostRun[]): Figure[] {
  const of = (pick: (c: SendCostRun) => number) => costs.map(pick);
  return [
    info(
      'worker CPU per 1,000 messages, unpaced drain',
      'CPU s',
      of((c) => c.worker.cpuSecondsPer1000),
      3,
    ),
    info(
      'Redis commands per message (send; calls inside scripts counted)',
      'commands',
      of((c) => c.sendRedis.totalCalls / c.rows),
      1,
    ),
    info(
      'Redis CPU per 1,000 messages (send)',
      'CPU s',
      of((c) => (c.sendRedis.cpuSeconds / c.rows) * 1000),
      3,
    ),
    info(
      'Redis per pending row (after ingest)',
      'B',
      of((c) => c.pendingBytesPerRow),
    ),
    info(
      'Redis per settled row, before statuses',
      'B',
      of((c) => c.settledBytesPerRow),
    ),
    info(
      'Redis per settled row, statuses applied',
      'B',
      of((c) => c.keptBytesPerRow),
    ),
    info(
      '  of which kept for RETENTION_DAYS',
      'B',
      of((c) => c.keptByClass.retained),
    ),
    info(
      '  of which kept for the 24 h windows',
      'B',
      of((c) => c.keptByClass.window),
    ),
    info(
      '  of which not growing with rows',
      'B',
      of((c) => c.keptByClass.fixed),
    ),
    info(
      'statuses applied by one serve, 1 per POST',
      'statuses/s',
      of((c) => c.statuses.perSecond),
    ),
    info(
      'serve CPU per 1,000 statuses',
      'CPU s',
      of((c) => c.statuses.serveCpuSecondsPer1000),
      3,
    ),
    info(
      'Redis commands per status (inside scripts counted)',
      'commands',
      of((c) => c.statuses.redis.totalCalls / c.statuses.events),
      1,
    ),
    info(
      'Redis CPU per 1,000 statuses',
      'CPU s',
      of((c) => (c.statuses.redis.cpuSeconds / c.statuses.events) * 1000),
      3,
    ),
  ];
}

function checkFigures(check: CheckRun, predicted: number, predictedLeft: number): Figure[] {
  const loaded = check.masters.filter((m) => m.numbers.length > 0);
  return [
    info(
      'cluster: messages per CPU second of a master',
      'msg/s',
      loaded.map((m) => m.messagesPerCpuSecond),
    ),
    info('check run: worker CPU per 1,000 messages, paced', 'CPU s', [check.workerCpuSecondsPer1000], 3),
    figure({
      label: `check run: ${CHECK_NUMBERS} numbers × ${CHECK_RATE}/s, all numbers`,
      unit: 'msg/s',
      ours: [check.total.rate],
      baseline: [predictedLeft],
      baselineLabel: `the model on the cores others left (on all ${cpus().length}: ${fmt(predicted)})`,
      judgedOn: 'median',
      target: 'informational: 2 shared cores',
      informational: true,
      check: () => [],
    }),
    figure({
      label: 'check run: busiest second of any number',
      unit: 'msgs',
      ours: check.perNumber.map((n) => n.busiest),
      baseline: [],
      baselineLabel: 'target only',
      judgedOn: 'worst run',
      target: `no window above ${MAX_RATE_PER_NUMBER}`,
      check: (value) => (value <= MAX_RATE_PER_NUMBER ? [] : [`${value} in one second`]),
    }),
  ];
}

function costNotes(costs: readonly SendCostRun[]): string[] {
  const last = costs[costs.length - 1];
  if (last === undefined) return [];
  return [
    `capacity cost runs, load (1-min) at start → end: ${costs.map((c) => c.load.join(' → ')).join('; ')}`,
    `capacity: Redis commands per message (send, last run): ${perMessageText(last.sendRedis, last.rows)}`,
    `capacity: Redis commands per status (last run): ${perMessageText(last.statuses.redis, last.statuses.events)}`,
    `capacity: sandbox (the simulated Meta) CPU per 1,000 messages: ${costs.map((c) => fmt(c.sandboxCpuSecondsPer1000, 3)).join(', ')} s`,
    `capacity: bytes per settled row by key (last run, MEMORY USAGE, statuses applied): ` +
      last.census.byPattern
        .filter((p) => p.bytes / last.rows >= 1)
        .map((p) => `${p.pattern} [${p.keyClass}] ${fmt(p.bytes / last.rows)} B`)
        .join('; '),
  ];
}

function checkNotes(check: CheckRun): string[] {
  const pct = (n: number) => `${fmt(n * 100)}%`;
  return [
    `capacity check run: ${check.workers} worker(s), ${check.windowSeconds} s window, ` +
      `load ${check.load.before.join('/')} → ${check.load.after.join('/')}`,
    `capacity check run, per number: ` +
      check.perNumber
        .map((n) => `${n.number} (master :${n.master}) ${fmt(n.rate, 1)} msg/s, busiest ${n.busiest}, longest silence ${n.longestGapMs} ms`)
        .join('; '),
    `capacity check run, CPU of a core: workers ${check.cores.workers.map(pct).join(', ')}; sandbox ${pct(check.cores.sandbox)}; ` +
      `masters ${check.cores.masters.map(pct).join(', ')}; whole machine ${pct(check.cores.machine)} of ${cpus().length * 100}%, ` +
      `of it others' ${pct(check.cores.others)}`,
    `capacity check run, per master: ` +
      check.masters
        .map((m) => `:${m.port} ${m.numbers.length} number(s), ${fmt(m.messages)} msgs, ${pct(m.cores)}, ${fmt(m.commands)} commands`)
        .join('; '),
    `capacity check run: Redis commands per message on the cluster: ${perMessageText(check.redis, check.total.accepted)}`,
  ];
}

function method(checkWorkers: number): string[] {
  return [
    `capacity, costs: on a redis-server of its own (free port, no persistence), \`campaign send\` of ${COST_ROWS} rows, then one ` +
      `\`campaign worker\` (SEND_RATE=0, SEND_CONCURRENCY=100) drains them to \`campaign sandbox --mps 0\`: worker CPU ` +
      `(utime+stime, /proc) from its ready line to "campaign completed"; Redis INFO commandstats and used_cpu_sys+user ` +
      `over the same span; used_memory before ingest, after it, after settle. Then \`campaign serve\` takes sent, ` +
      `delivered and read for every message (one per POST, 16 senders in the bench process): statuses/s to every row ` +
      `read, serve CPU, Redis commands and CPU; then MEMORY USAGE of every key, by name.`,
    `capacity, check run: 3 masters started here (redis-server --cluster-enabled, free ports, no replicas), ` +
      `${CHECK_NUMBERS} numbers chosen so their slots spread over the masters, ${checkWorkers} \`campaign worker\` ` +
      `serving every number at SEND_RATE=${CHECK_RATE}, no webhooks; rate per number in the window at the sandbox, ` +
      `busiest sliding second over the whole run, CPU of every process over the window.`,
  ];
}
