import { execFileSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';

/**
 * CPU seconds (user + system) a process has used so far, from /proc/<pid>/stat. Sampling the
 * worker, the sandbox and redis-server over the same interval shows which one is the
 * bottleneck on a 2-core machine. undefined where /proc is not readable (not Linux).
 */
let ticksPerSecond: number | undefined;

function clockTicks(): number {
  if (ticksPerSecond === undefined) {
    try {
      ticksPerSecond = Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }).trim()) || 100;
    } catch {
      ticksPerSecond = 100;
    }
  }
  return ticksPerSecond;
}

export function cpuSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const stat = readFileSync(`/proc/${pid}/stat`, 'utf8');
    // The command name is in parentheses and may hold spaces: count fields after the last ')'.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    // After ')': field 3 is state, so utime (14) and stime (15) are at indexes 11 and 12.
    const utime = Number(fields[11]);
    const stime = Number(fields[12]);
    if (!Number.isFinite(utime) || !Number.isFinite(stime)) return undefined;
    return (utime + stime) / clockTicks();
  } catch {
    return undefined;
  }
}

/**
 * Seconds a process's main thread has spent runnable but waiting for a core (the run queue),
 * from /proc/<pid>/schedstat (its second field, ns). On 2 cores shared by three busy processes,
 * a thread that could run often cannot: this shows how much of a run that was. undefined where
 * the file is not readable (not Linux, or a kernel built without schedstats).
 */
export function runQueueSeconds(pid: number | undefined): number | undefined {
  if (pid === undefined) return undefined;
  try {
    const waited = Number(readFileSync(`/proc/${pid}/schedstat`, 'utf8').split(' ')[1]);
    return Number.isFinite(waited) ? waited / 1e9 : undefined;
  } catch {
    return undefined;
  }
}

/** CPU use over an interval as a share of one core, e.g. 0.93 = 93% of a core. */
export function coreShare(before: number | undefined, after: number | undefined, wallMs: number): number | undefined {
  if (before === undefined || after === undefined || wallMs <= 0) return undefined;
  return (after - before) / (wallMs / 1000);
}

/**
 * CPU seconds the whole machine has been busy (all cores, everything but idle and iowait),
 * from the first line of /proc/stat. Busy minus what the measured processes used is what
 * others on this shared machine took during a run: the noise, made visible.
 */
export function machineBusySeconds(): number | undefined {
  try {
    const line = readFileSync('/proc/stat', 'utf8').split('\n')[0] ?? '';
    const ticks = line.trim().split(/\s+/).slice(1).map(Number);
    const total = ticks.reduce((sum, t) => sum + t, 0);
    const idle = (ticks[3] ?? 0) + (ticks[4] ?? 0);
    return (total - idle) / clockTicks();
  } catch {
    return undefined;
  }
}

/**
 * How fast this machine is right now: milliseconds for a fixed single-threaded hash loop
 * (~75 ms when idle). Taken before each run; a rising value across runs means the host gave
 * the machine less CPU (runs then slow down on both sides), not that the code changed.
 */
export function speedProbeMs(): number {
  const start = performance.now();
  let digest = Buffer.alloc(32);
  for (let i = 0; i < 50_000; i++) digest = createHash('sha256').update(digest).digest();
  return performance.now() - start;
}
