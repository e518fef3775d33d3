import { existsSync, readFileSync, rmSync } from 'node:fs';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import type { Redis } from 'ioredis';
import { runToExit, startChild } from '../support/children.js';
import { coreShare, cpuSeconds, machineBusySeconds, speedProbeMs } from '../support/cpu.js';
import { ROOT, parseSendSummary, productEnv, sendArgs } from '../support/product.js';
import { freshPrefix } from '../support/redis.js';
import type { SendRun } from './types.js';

const GNU_TIME = '/usr/bin/time';

/** `campaign send FILE` with no worker: wall time, peak RSS, Redis memory. Leaves its prefix in place. */
export async function measureSend(
  rig: { redis: Redis; redisPid: number | undefined; tmp: string },
  file: string,
  rows: number,
  tag: string,
): Promise<SendRun> {
  const { redis, redisPid, tmp } = rig;
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
}

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
