import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { startChild, stopChild, waitForLine, type Child } from './children.js';
import { warmUpReceiver } from './receiver-warm-up.js';
import { CAMPAIGN_BIN, ROOT, TEMPLATES_FILE, productEnv } from './product.js';

/**
 * The sandbox Cloud API as its own process (`campaign sandbox --port 0 --mps 0`), started
 * once per section and shared by the product and the bare baseline, reset between runs. As a
 * separate process it does not share the benchmark's event loop, and it costs both sides the
 * same CPU. --mps 0: it accepts and counts everything, so the counts are the client's own.
 */
export interface SandboxChild {
  url: string;
  child: Child;
  /** The sandbox's scheduling priority (see raisePriority), and whether pacing was measured with it in the real-time class. */
  readonly receiverPriority: string;
  /** Runs `measure` with the sandbox in the real-time class (see RECEIVER_REALTIME_PRIORITY), then back at its usual priority. */
  realtime<T>(measure: () => Promise<T>): Promise<T>;
  reset(): Promise<void>;
  /** receivedAt (ms since the epoch) of every accepted message, sorted. */
  acceptedTimes(): Promise<number[]>;
  /** receivedAt of every accepted message by phone-number ID, each list sorted. */
  acceptedTimesByNumber(): Promise<Map<string, number[]>>;
  stats(): Promise<{ accepted: number; rejectedByCode: Record<string, number>; busiestSecond: number }>;
  /** Replaces the sandbox's fault settings (POST /_sandbox/faults); `{}` turns them off. A reset keeps them. */
  setFaults(settings: Record<string, unknown>): Promise<void>;
  stop(): Promise<void>;
}

/**
 * Node's flags for the receiver of the sections that measure pacing (rate, scale, toptier): a young generation of
 * 1 MB a semi-space. The sandbox keeps every accepted message until a reset, so each scavenge copies the messages
 * accepted since the one before. With V8's default (up to 16 MB) a scavenge held its event loop 4–16 ms about once a
 * second at 1,000 msg/s, longer than the ceiling's 8 ms guard, and the requests that came meanwhile were stamped
 * together: 1,004 and 1,009 in a second where the wire had 1,000, and 251–252 at four numbers × 250/s (each
 * request's stamp paired with its arrival on the wire). With 1 MB no request was read over 8 ms late within a
 * collection in 7 such runs; collecting costs the sandbox about 15 µs a message more, which only the throughput
 * sections would notice: they use a receiver without it. Stalls outside its collections remain
 * (docs/performance.md, "Never above").
 */
export const PACING_RECEIVER_NODE_FLAGS: readonly string[] = ['--max-semi-space-size=1'];

/** `webhooks`: the sandbox also posts signed status webhooks (sent, delivered, read) to that receiver. */
/** `phoneNumberIds`: numbers it answers for besides the default one (the scale section sends from four). */
/** `nodeFlags`: Node's own flags for the sandbox process (see PACING_RECEIVER_NODE_FLAGS). */
export async function startSandboxChild(
  webhooks?: { url: string; appSecret: string },
  phoneNumberIds: readonly string[] = [],
  extraArgs: readonly string[] = [],
  nodeFlags: readonly string[] = [],
): Promise<SandboxChild> {
  const child = startChild(
    'campaign sandbox',
    process.execPath,
    [
      ...nodeFlags,
      ...[CAMPAIGN_BIN, 'sandbox', '--port', '0', '--mps', '0', '--templates', TEMPLATES_FILE],
      ...(webhooks === undefined ? [] : ['--webhook-url', webhooks.url]),
      ...(phoneNumberIds.length === 0 ? [] : ['--phone-number-id', phoneNumberIds.join(',')]),
      ...extraArgs,
    ],
    // productEnv sets WHATSAPP_ACCESS_TOKEN, so the sandbox accepts the same token the workers send.
    // LOG_LEVEL=warn: the sandbox logs nothing per request either way; this keeps its info lines out.
    productEnv('bench-sandbox', { LOG_LEVEL: 'warn', ...(webhooks === undefined ? {} : { WHATSAPP_APP_SECRET: webhooks.appSecret }) }),
    ROOT,
  );
  const { line } = await waitForLine(child, (l) => /listening on http:\/\//.test(l), 30_000);
  // Once it listens: every thread it has started by then (V8's garbage-collection helpers among them) is raised with it.
  const priority = receiverPriority(child.pid);
  const url = /listening on (http:\/\/[^\s)]+)/.exec(line)?.[1];
  if (url === undefined) throw new Error(`cannot read the sandbox URL from: ${line}`);
  const call = async (method: 'GET' | 'POST', path: string): Promise<unknown> => {
    const response = await request(`${url}${path}`, { method });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`sandbox ${method} ${path}: HTTP ${response.statusCode} ${text}`);
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  };
  await warmUpReceiver(url);
  return {
    url,
    child,
    get receiverPriority() {
      return nodeFlags.length === 0 ? priority.receiverPriority : `${priority.receiverPriority}; node ${nodeFlags.join(' ')}`;
    },
    realtime: priority.realtime,
    reset: async () => {
      await call('POST', '/_sandbox/reset');
    },
    acceptedTimes: async () => {
      const all = await call('GET', '/_sandbox/accepted');
      if (!Array.isArray(all)) throw new Error('sandbox /_sandbox/accepted did not return a list');
      return all.map((m) => Number((m as { receivedAt?: unknown }).receivedAt)).sort((a, b) => a - b);
    },
    acceptedTimesByNumber: async () => {
      const all = await call('GET', '/_sandbox/accepted');
      if (!Array.isArray(all)) throw new Error('sandbox /_sandbox/accepted did not return a list');
      const byNumber = new Map<string, number[]>();
      for (const m of all as { receivedAt?: unknown; phoneNumberId?: unknown }[]) {
        const id = String(m.phoneNumberId);
        const times = byNumber.get(id) ?? [];
        times.push(Number(m.receivedAt));
        byNumber.set(id, times);
      }
      for (const times of byNumber.values()) times.sort((a, b) => a - b);
      return byNumber;
    },
    stats: async () => (await call('GET', '/_sandbox/stats')) as Awaited<ReturnType<SandboxChild['stats']>>,
    setFaults: async (settings) => {
      const response = await request(`${url}/_sandbox/faults`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(settings),
      });
      const text = await response.body.text();
      if (response.statusCode >= 300) throw new Error(`sandbox POST /_sandbox/faults: HTTP ${response.statusCode} ${text}`);
    },
    stop: async () => {
      await stopChild(child);
    },
  };
}

/**
 * The sandbox stands for Meta's servers, which do not share the sender's cores. On a 2-core
 * machine it competes with the workers and Redis, and a scheduling delay of its own stamps
 * arrivals late and bunches them, which the rate figures would count as the sender's. It runs at
 * nice -10 (every thread: a nice value is a thread's own on Linux) so that the workers' load
 * does not delay it; the workers and Redis keep their usual priority. Where raising it is not
 * allowed (not root), it runs as is and the figures say so.
 */
export const RECEIVER_NICE = -10;

/**
 * While pacing is measured (the rate and top-tier sections) it runs in the real-time class
 * instead (SCHED_FIFO, `chrt`, every thread): it takes a core the moment a request wakes it,
 * and uses about a fifth of one at 1,000 msg/s. At nice -10 its event loop still stalled for up
 * to 140 ms while two workers warmed up, and it counted 1,001–1,200 requests in one second where
 * the workers' sockets had sent at most 1,000 in any (git's history of docs/performance.md,
 * "Rate at the receiver"). Not for the throughput sections: there it takes a core whenever a request comes,
 * ahead of Redis and the workers, and an unpaced drain measured 0.42× the bare worker with it
 * against 0.52× at nice -10 in the same hour.
 */
export const RECEIVER_REALTIME_PRIORITY = 10;

/** The sandbox's priority: nice -10 as it runs, the real-time class while pacing is measured. */
function receiverPriority(pid: number): Pick<SandboxChild, 'receiverPriority' | 'realtime'> {
  const usual = raisePriority(pid);
  let realtimeUse = '';
  return {
    get receiverPriority() {
      return `${usual}${realtimeUse}`;
    },
    realtime: async (measure) => {
      const entered = enterRealtime(pid);
      realtimeUse = entered.ok ? `; real-time (SCHED_FIFO ${RECEIVER_REALTIME_PRIORITY}) while pacing was measured` : `; ${entered.why}`;
      try {
        return await measure();
      } finally {
        if (entered.ok) leaveRealtime(pid);
      }
    },
  };
}

function raisePriority(pid: number): string {
  try {
    for (const thread of threadsOf(pid)) setPriority(thread, RECEIVER_NICE);
    return `nice ${RECEIVER_NICE}`;
  } catch (error) {
    return `nice 0 (could not raise it: ${(error as NodeJS.ErrnoException).code ?? String(error)})`;
  }
}

function enterRealtime(pid: number): { ok: true } | { ok: false; why: string } {
  try {
    execFileSync('chrt', ['--fifo', '--all-tasks', '--pid', String(RECEIVER_REALTIME_PRIORITY), String(pid)], { stdio: 'ignore' });
    return { ok: true };
  } catch (error) {
    return { ok: false, why: `not real-time while pacing was measured (chrt: ${(error as Error).message.split('\n')[0] ?? ''})` };
  }
}

/** Back to the usual class; its nice value is set again, as the real-time class does not keep it everywhere. */
function leaveRealtime(pid: number): void {
  try {
    execFileSync('chrt', ['--other', '--all-tasks', '--pid', '0', String(pid)], { stdio: 'ignore' });
    raisePriority(pid);
  } catch {
    // The sandbox has exited: nothing to lower.
  }
}

/** The IDs of the process's threads (/proc/PID/task), or the process alone where /proc is not there. */
function threadsOf(pid: number): number[] {
  try {
    return readdirSync(`/proc/${pid}/task`).map(Number);
  } catch {
    return [pid];
  }
}

/** Polls the sandbox until the first message arrives; returns its receivedAt. Fails when a sender exits first or after 60 s. */
export async function firstAccepted(sandbox: SandboxChild, senders: readonly Child[]): Promise<number> {
  const deadline = Date.now() + 60_000;
  let exited: string | undefined;
  for (const sender of senders) void sender.exited.then(() => (exited ??= sender.name));
  while (Date.now() < deadline && exited === undefined) {
    if ((await sandbox.stats()).accepted > 0) {
      const first = (await sandbox.acceptedTimes())[0];
      if (first !== undefined) return first;
    }
    await sleep(20);
  }
  throw new Error(
    `no message reached the ` +
      `sandbox${exited === undefined ? ' within 60 s' : ` (${exited} exited)`}\n${senders.map((s) => s.tail()).join('\n')}`,
  );
}
