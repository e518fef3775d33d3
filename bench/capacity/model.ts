import { loadConfig } from '../../src/config/config.js';
import { fmt } from '../support/figures.js';

/**
 * The capacity model: from measured costs per message to processes, cores, Redis masters
 * and memory for a daily volume. Every input is a measured figure except the assumptions
 * below, which are stated wherever the table is printed.
 *
 *   peak msg/s      P = messages a day / (PEAK_HOURS × 3600)
 *   workers         ⌈P × w / U⌉          w = worker CPU s per message
 *   serve           ⌈P × E × s / U⌉      E = statuses per message, s = serve CPU s per status
 *   Redis masters   max(⌈P × r / U⌉, ⌈memory / MASTER_MEMORY⌉)   r = Redis CPU s per message, its statuses included
 *   cores           ⌈P × (w + E × s + r) / U⌉
 *   Redis memory    day × (D × kept + H/24 × window + pending)
 *                   D = RETENTION_DAYS, H = DUPLICATE_WINDOW_HOURS; `pending` = one day's rows queued at once
 *                   (the worst case: a day ingested before it is sent)
 */
export const DAILY_VOLUMES = [1_000_000, 10_000_000, 100_000_000] as const;
/** Campaigns are bursty: a day's messages are assumed to leave within this many hours. */
export const PEAK_HOURS = 8;
/** Each process (and each Redis master, one core each) is planned at this share of a core, leaving room for spikes. */
export const UTILISATION = 0.7;
/** Memory one master is given at most (a fork for a snapshot or an AOF rewrite stays manageable). */
export const MASTER_MEMORY_BYTES = 25 * 1024 ** 3;
/** Meta's highest throughput per phone number. */
export const MAX_RATE_PER_NUMBER = 1000;

export interface ModelInputs {
  workerCpuPerMessage: number;
  serveCpuPerStatus: number;
  statusesPerMessage: number;
  redisCpuPerMessage: number;
  redisCpuPerStatus: number;
  keptBytesPerRow: number;
  windowBytesPerRow: number;
  pendingBytesPerRow: number;
}

export interface ModelLine {
  perDay: number;
  peakPerSecond: number;
  numbers: number;
  workers: number;
  serve: number;
  masters: number;
  mastersForCpu: number;
  mastersForMemory: number;
  cores: number;
  memoryBytes: number;
}

export function defaultsOfConfig(): { retentionDays: number; duplicateWindowHours: number } {
  const config = loadConfig({});
  return { retentionDays: config.retentionMs / 86_400_000, duplicateWindowHours: config.duplicateWindowMs / 3_600_000 };
}

export function modelLine(perDay: number, input: ModelInputs): ModelLine {
  const { retentionDays, duplicateWindowHours } = defaultsOfConfig();
  const peak = perDay / (PEAK_HOURS * 3600);
  const redisCpu = input.redisCpuPerMessage + input.statusesPerMessage * input.redisCpuPerStatus;
  const serveCpu = input.statusesPerMessage * input.serveCpuPerStatus;
  const memoryBytes =
    perDay * (retentionDays * input.keptBytesPerRow + (duplicateWindowHours / 24) * input.windowBytesPerRow + input.pendingBytesPerRow);
  const mastersForCpu = Math.max(1, Math.ceil((peak * redisCpu) / UTILISATION));
  const mastersForMemory = Math.max(1, Math.ceil(memoryBytes / MASTER_MEMORY_BYTES));
  return {
    perDay,
    peakPerSecond: peak,
    numbers: Math.ceil(peak / MAX_RATE_PER_NUMBER),
    workers: Math.max(1, Math.ceil((peak * input.workerCpuPerMessage) / UTILISATION)),
    serve: Math.max(1, Math.ceil((peak * serveCpu) / UTILISATION)),
    mastersForCpu,
    mastersForMemory,
    masters: Math.max(mastersForCpu, mastersForMemory),
    cores: Math.ceil((peak * (input.workerCpuPerMessage + serveCpu + redisCpu)) / UTILISATION),
    memoryBytes,
  };
}

/** What `cores` cores, all of them ours, could carry, with the simulated Meta (`sandboxCpu` s per message) on them too. */
export function predictedOnCores(cores: number, input: ModelInputs, sandboxCpuPerMessage: number): number {
  return cores / (input.workerCpuPerMessage + input.redisCpuPerMessage + sandboxCpuPerMessage);
}

const gb = (bytes: number) => `${fmt(bytes / 1024 ** 3, bytes < 10 * 1024 ** 3 ? 1 : 0)} GiB`;

/** The table docs/performance.md shows, in Markdown. */
export function modelTable(input: ModelInputs): string[] {
  const { retentionDays, duplicateWindowHours } = defaultsOfConfig();
  const lines = [
    `| Messages a day | Peak msg/s (a day in ${PEAK_HOURS} h) | Numbers at ${fmt(MAX_RATE_PER_NUMBER)}/s | Worker processes | ` +
      `\`serve\` processes | Cores | Redis masters (for CPU / for memory) | ` +
      `Redis memory (${retentionDays} days' rows, ${duplicateWindowHours} h guard) |`,
    '| --- | --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const perDay of DAILY_VOLUMES) {
    const l = modelLine(perDay, input);
    lines.push(
      `| ${fmt(perDay)} | ${fmt(l.peakPerSecond)} | ${l.numbers} | ${l.workers} | ${l.serve} | ${l.cores} | ` +
        `${l.masters} (${l.mastersForCpu} / ${l.mastersForMemory}) | ${gb(l.memoryBytes)} |`,
    );
  }
  return lines;
}

export function modelInputsText(input: ModelInputs): string[] {
  const us = (s: number) => `${fmt(s * 1e6, 0)} µs`;
  return [
    `worker CPU per message w = ${us(input.workerCpuPerMessage)}; serve CPU per status s = ${us(input.serveCpuPerStatus)}; ` +
      `statuses per message E = ${input.statusesPerMessage}`,
    `Redis CPU per message r = ${us(input.redisCpuPerMessage)} + E × ${us(input.redisCpuPerStatus)} per status`,
    `bytes per row: kept for retention ${fmt(input.keptBytesPerRow)} B, guard window ${fmt(input.windowBytesPerRow)} B, ` +
      `pending ${fmt(input.pendingBytesPerRow)} B`,
    `assumptions: a day's messages in ${PEAK_HOURS} h; every process and master planned at ${UTILISATION * 100}% of a core; ` +
      `at most ${gb(MASTER_MEMORY_BYTES)} per master; one copy (a replica per master doubles masters and memory)`,
  ];
}
