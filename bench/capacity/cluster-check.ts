import { loadavg } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { Redis } from 'ioredis';
import { numberScope } from '../../src/redis/key-scope.js';
import { RedisClusterUnderTest } from '../../test/support/redis-cluster.js';
import { runToExit, startChild, stopChild, waitForLine, type Child } from '../support/children.js';
import { coreShare, cpuSeconds, machineBusySeconds } from '../support/cpu.js';
import { ensureCsv } from '../support/data.js';
import { CAMPAIGN_BIN, PHONE_NUMBER_ID, ROOT, parseSendSummary, productEnv, sendArgs } from '../support/product.js';
import { firstAccepted, startSandboxChild, type SandboxChild } from '../support/sandbox.js';
import { busiestWindow } from '../support/stats.js';
import { redisDelta, redisSnapshot, sumDeltas, type RedisDelta } from './redis-stats.js';

/**
 * The check run: NUMBERS phone numbers at SEND_RATE=RATE each, on a Redis Cluster of three
 * masters started here (free ports, no replicas, stopped by PID), sent by `workers` `campaign
 * worker` processes that each serve every number, to `campaign sandbox --mps 0`, for
 * WINDOW_MS after a warm-up. Measured at the receiver per number (rate in the window, busiest
 * sliding second of the whole run), and every process's CPU over the window, and per master
 * its messages, commands and CPU: the cluster's throughput per master on this machine.
 */
export const CHECK_NUMBERS = 4;
export const CHECK_RATE = 1000;
export const CHECK_WINDOW_MS = 40_000;
const WARMUP_MS = 2000;
const MASTERS = 3;

export interface MasterFigures {
  port: number;
  numbers: string[];
  messages: number;
  cores: number;
  commands: number;
  /** Messages this master carries per second of its CPU: the most one master's core could carry. */
  messagesPerCpuSecond: number;
}

export interface CheckRun {
  workers: number;
  windowSeconds: number;
  load: { before: number[]; after: number[] };
  perNumber: { number: string; master: number; rate: number; busiest: number; longestGapMs: number }[];
  total: { rate: number; accepted: number };
  cores: { workers: number[]; sandbox: number; masters: number[]; machine: number; others: number };
  masters: MasterFigures[];
  redis: RedisDelta;
  /** Worker CPU seconds per 1,000 messages, paced (all workers together). */
  workerCpuSecondsPer1000: number;
}

export async function checkRun(workers: number): Promise<CheckRun> {
  const cluster = await RedisClusterUnderTest.start({ masters: MASTERS });
  const children: Child[] = [];
  let sandbox: SandboxChild | undefined;
  const prefix = `bench-capacity-check`;
  const clients: Redis[] = [];
  try {
    const masterPorts = await cluster.masterPorts();
    const numbers = await spreadNumbers(cluster, prefix, masterPorts);
    sandbox = await startSandboxChild(
      undefined,
      numbers.map((n) => n.number),
    );
    const rows = Math.ceil((CHECK_RATE * ((WARMUP_MS + CHECK_WINDOW_MS) / 1000 + 12)) / 1000) * 1000;
    const file = await ensureCsv(rows);
    const env = (extra: Record<string, string> = {}) => productEnv(prefix, { ...cluster.env(), ...extra });
    for (const { number } of numbers) {
      const send = startChild('campaign send', process.execPath, sendArgs(file, number), env(), ROOT);
      await runToExit(send, 300_000);
      if (parseSendSummary(send).queued !== rows) throw new Error(`campaign send queued fewer than ${rows} rows for ${number}`);
    }
    const loadBefore = loadavg();
    const workerEnv = env({ WHATSAPP_API_URL: sandbox.url, SEND_RATE: String(CHECK_RATE), WHATSAPP_PHONE_NUMBER_ID: '' });
    for (let i = 0; i < workers; i++) {
      children.push(startChild(`campaign worker ${i + 1}`, process.execPath, [CAMPAIGN_BIN, 'worker'], workerEnv, ROOT));
    }
    await Promise.all(children.map((w) => waitForLine(w, (line) => /send worker started/.test(line), 60_000)));
    const first = await firstAccepted(sandbox, children);
    const windowStart = Math.max(Date.now(), first + WARMUP_MS);
    await sleep(Math.max(0, windowStart - Date.now()));
    for (const port of masterPorts) clients.push(new Redis(port, '127.0.0.1', { maxRetriesPerRequest: 3 }));
    const pids = { workers: children.map((w) => w.pid), sandbox: sandbox.child.pid, masters: masterPorts.map((p) => cluster.pidOf(p)) };
    const cpu = () => ({
      workers: pids.workers.map(cpuSeconds),
      sandbox: cpuSeconds(pids.sandbox),
      masters: pids.masters.map(cpuSeconds),
      machine: machineBusySeconds(),
    });
    const redisBefore = await Promise.all(clients.map(redisSnapshot));
    const cpuBefore = cpu();
    const t0 = performance.now();
    await sleep(Math.max(0, windowStart + CHECK_WINDOW_MS - Date.now()));
    const wallMs = performance.now() - t0;
    const cpuAfter = cpu();
    const redisAfter = await Promise.all(clients.map(redisSnapshot));
    const loadAfter = loadavg();
    await Promise.all(children.map((w) => stopChild(w)));
    const byNumber = await sandbox.acceptedTimesByNumber();
    return summarise({
      workers,
      numbers,
      byNumber,
      windowStart,
      wallMs,
      masterPorts,
      cpuBefore,
      cpuAfter,
      redisBefore,
      redisAfter,
      loadBefore,
      loadAfter,
    });
  } finally {
    for (const client of clients) client.disconnect();
    for (const child of children) await stopChild(child);
    await sandbox?.stop();
    await cluster.stop();
  }
}

type CpuSample = {
  workers: (number | undefined)[];
  sandbox: number | undefined;
  masters: (number | undefined)[];
  machine: number | undefined;
};

function summarise(m: {
  workers: number;
  numbers: { number: string; master: number }[];
  byNumber: Map<string, number[]>;
  windowStart: number;
  wallMs: number;
  masterPorts: number[];
  cpuBefore: CpuSample;
  cpuAfter: CpuSample;
  redisBefore: Awaited<ReturnType<typeof redisSnapshot>>[];
  redisAfter: Awaited<ReturnType<typeof redisSnapshot>>[];
  loadBefore: number[];
  loadAfter: number[];
}): CheckRun {
  const seconds = CHECK_WINDOW_MS / 1000;
  const share = (before: number | undefined, after: number | undefined) => coreShare(before, after, m.wallMs) ?? Number.NaN;
  const perNumber = m.numbers.map(({ number, master }) => {
    const times = m.byNumber.get(number) ?? [];
    const inWindow = times.filter((t) => t >= m.windowStart && t < m.windowStart + CHECK_WINDOW_MS);
    const longestGapMs = inWindow.reduce((gap, t, i) => Math.max(gap, t - (inWindow[i - 1] ?? t)), 0);
    return { number, master, rate: inWindow.length / seconds, busiest: busiestWindow(times, 1000), longestGapMs };
  });
  const deltas = m.redisAfter.map((after, i) => {
    const before = m.redisBefore[i];
    if (before === undefined) throw new Error('a master answered INFO after the window but not before it');
    return redisDelta(before, after);
  });
  const masters = m.masterPorts.map((port, i) => {
    const mine = perNumber.filter((n) => n.master === port);
    const messages = mine.reduce((sum, n) => sum + n.rate * seconds, 0);
    const cpu = deltas[i]?.cpuSeconds ?? Number.NaN;
    return {
      port,
      numbers: mine.map((n) => n.number),
      messages,
      cores: cpu / (m.wallMs / 1000),
      commands: deltas[i]?.totalCalls ?? 0,
      messagesPerCpuSecond: messages / cpu,
    };
  });
  const workerCores = m.cpuAfter.workers.map((after, i) => share(m.cpuBefore.workers[i], after));
  const masterCores = m.cpuAfter.masters.map((after, i) => share(m.cpuBefore.masters[i], after));
  const sandboxCores = share(m.cpuBefore.sandbox, m.cpuAfter.sandbox);
  const machine = share(m.cpuBefore.machine, m.cpuAfter.machine);
  const ours = [...workerCores, ...masterCores, sandboxCores].reduce((a, b) => a + b, 0);
  const accepted = perNumber.reduce((sum, n) => sum + n.rate * seconds, 0);
  const workerCpu = workerCores.reduce((a, b) => a + b, 0) * (m.wallMs / 1000);
  return {
    workers: m.workers,
    windowSeconds: seconds,
    load: { before: m.loadBefore.map(round2), after: m.loadAfter.map(round2) },
    perNumber,
    total: { rate: accepted / seconds, accepted },
    cores: { workers: workerCores, sandbox: sandboxCores, masters: masterCores, machine, others: machine - ours },
    masters,
    redis: sumDeltas(deltas),
    workerCpuSecondsPer1000: (workerCpu / accepted) * 1000,
  };
}

const round2 = (n: number) => Math.round(n * 100) / 100;

/**
 * CHECK_NUMBERS phone-number IDs whose keys spread over the masters as evenly as they can
 * (a number's keys all live in its `{number}` slot): the check run then loads every master.
 */
async function spreadNumbers(
  cluster: RedisClusterUnderTest,
  prefix: string,
  masterPorts: number[],
): Promise<{ number: string; master: number }[]> {
  const chosen: { number: string; master: number }[] = [];
  const load = new Map(masterPorts.map((p) => [p, 0]));
  for (let i = 0; chosen.length < CHECK_NUMBERS && i < 200; i++) {
    const number = String(BigInt(PHONE_NUMBER_ID) + BigInt(i));
    const master = await cluster.masterOf(numberScope(prefix, number));
    const least = Math.min(...load.values());
    if ((load.get(master) ?? 0) > least) continue;
    load.set(master, (load.get(master) ?? 0) + 1);
    chosen.push({ number, master });
  }
  if (chosen.length < CHECK_NUMBERS) throw new Error('could not spread the numbers over the masters');
  return chosen;
}
