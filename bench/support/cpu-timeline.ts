import { coreShare, cpuSeconds, machineBusySeconds, runQueueSeconds } from './cpu.js';

/**
 * CPU seconds of a few processes and of the whole machine, sampled every SAMPLE_EVERY_MS while a
 * run goes on, so their shares can be read over any part of the run afterwards. A drain's
 * figure spans its start-up, when each worker's code is still being compiled and runs at
 * a fraction of its speed; its steady part shows what a message costs each process once
 * warm.
 */
const SAMPLE_EVERY_MS = 100;

export interface CpuSample {
  /** Date.now(): the sandbox stamps its arrivals on the same clock. */
  at: number;
  /** CPU seconds so far of each process, by name; the machine's busy seconds under `machine`. */
  seconds: Record<string, number | undefined>;
  /** Seconds so far each process's main thread waited, runnable, for a core (absent: not sampled). */
  waited?: Record<string, number | undefined>;
}

export interface CpuTimeline {
  stop(): CpuSample[];
}

export function startCpuTimeline(pids: Record<string, number | undefined>): CpuTimeline {
  const samples: CpuSample[] = [];
  const sample = () => {
    const seconds: Record<string, number | undefined> = { machine: machineBusySeconds() };
    const waited: Record<string, number | undefined> = {};
    for (const [name, pid] of Object.entries(pids)) {
      seconds[name] = cpuSeconds(pid);
      waited[name] = runQueueSeconds(pid);
    }
    samples.push({ at: Date.now(), seconds, waited });
  };
  sample();
  const timer = setInterval(sample, SAMPLE_EVERY_MS);
  return {
    stop() {
      clearInterval(timer);
      sample();
      return samples;
    },
  };
}

/**
 * The steady part of a run: its messages a second, each process's CPU a message (µs) and share of
 * a core, and the share of the part's time each process's main thread waited for a core while it
 * could have run (where that was read).
 */
export interface SteadyPart {
  seconds: number;
  messagesPerSecond: number;
  microsPerMessage: Record<string, number>;
  cores: Record<string, number>;
  waiting: Record<string, number>;
}

/**
 * The run from `skipStartMs` after its first arrival to `skipEndMs` before its last, read off
 * the samples that bound it; undefined when the run is too short to have such a part (under a
 * second of it) or a process's CPU could not be read.
 */
export function steadyPart(
  samples: readonly CpuSample[],
  arrivals: readonly number[],
  skipStartMs = 1000,
  skipEndMs = 500,
): SteadyPart | undefined {
  const first = arrivals[0];
  const last = arrivals[arrivals.length - 1];
  if (first === undefined || last === undefined) return undefined;
  const from = samples.find((s) => s.at >= first + skipStartMs);
  const to = samples.findLast((s) => s.at <= last - skipEndMs);
  if (from === undefined || to === undefined || to.at - from.at < 1000) return undefined;
  const seconds = (to.at - from.at) / 1000;
  const messages = arrivals.filter((t) => t >= from.at && t < to.at).length;
  const microsPerMessage: Record<string, number> = {};
  const cores: Record<string, number> = {};
  for (const name of Object.keys(from.seconds)) {
    const share = coreShare(from.seconds[name], to.seconds[name], to.at - from.at);
    if (share === undefined) return undefined;
    cores[name] = share;
    microsPerMessage[name] = messages > 0 ? (share * seconds * 1e6) / messages : Number.NaN;
  }
  const waiting: Record<string, number> = {};
  for (const name of Object.keys(from.waited ?? {})) {
    const share = coreShare(from.waited?.[name], to.waited?.[name], to.at - from.at);
    if (share !== undefined) waiting[name] = share;
  }
  return { seconds, messagesPerSecond: messages / seconds, microsPerMessage, cores, waiting };
}
