import { execFileSync } from 'node:child_process';
import { readdirSync } from 'node:fs';
import { setPriority } from 'node:os';
import { setTimeout as sleep } from 'node:timers/promises';
import { request } from 'undici';
import { startChild, stopChild, waitForLine, type Child } from './children.js';
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
  /** The sandbox's scheduling priority (nice value), or why it could not be raised: see raisePriority. */
  receiverPriority: string;
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

/** `webhooks`: the sandbox also posts signed status webhooks (sent, delivered, read) to that receiver. */
/** `phoneNumberIds`: numbers it answers for besides the default one (the scale section sends from four). */
export async function startSandboxChild(
  webhooks?: { url: string; appSecret: string },
  phoneNumberIds: readonly string[] = [],
  extraArgs: readonly string[] = [],
): Promise<SandboxChild> {
  const child = startChild(
    'campaign sandbox',
    process.execPath,
    [
      CAMPAIGN_BIN,
      'sandbox',
      '--port',
      '0',
      '--mps',
      '0',
      '--templates',
      TEMPLATES_FILE,
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
  const receiverPriority = raisePriority(child.pid);
  const url = /listening on (http:\/\/[^\s)]+)/.exec(line)?.[1];
  if (url === undefined) throw new Error(`cannot read the sandbox URL from: ${line}`);
  const call = async (method: 'GET' | 'POST', path: string): Promise<unknown> => {
    const response = await request(`${url}${path}`, { method });
    const text = await response.body.text();
    if (response.statusCode >= 300) throw new Error(`sandbox ${method} ${path}: HTTP ${response.statusCode} ${text}`);
    return text === '' ? undefined : (JSON.parse(text) as unknown);
  };
  return {
    url,
    child,
    receiverPriority,
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
 * arrivals late and bunches them, which the rate figures would count as the sender's. So it
 * runs in the real-time class (SCHED_FIFO, `chrt`), every thread of it: it takes a core the
 * moment a request wakes it, and it uses about a fifth of one at 1,000 msg/s. At nice -10 its
 * event loop still stalled for up to 140 ms while two workers warmed up, and it counted
 * 1,029–1,200 requests in one second where the workers' sockets had sent at most 1,000 in any
 * (docs/performance.md, "Rate at the receiver").
 * The workers and Redis keep their usual priority. Where the real-time class is not allowed,
 * it runs at nice -10, or as is, and the figures' header says which.
 */
export const RECEIVER_REALTIME_PRIORITY = 10;
export const RECEIVER_NICE = -10;

function raisePriority(pid: number): string {
  try {
    execFileSync('chrt', ['--fifo', '--all-tasks', '--pid', String(RECEIVER_REALTIME_PRIORITY), String(pid)], { stdio: 'ignore' });
    return `real-time (SCHED_FIFO ${RECEIVER_REALTIME_PRIORITY})`;
  } catch {
    // Not allowed, or no chrt: the next best, a nice value (a thread's own on Linux, so every thread's).
  }
  try {
    for (const thread of threadsOf(pid)) setPriority(thread, RECEIVER_NICE);
    return `nice ${RECEIVER_NICE}`;
  } catch (error) {
    return `nice 0 (could not raise it: ${(error as NodeJS.ErrnoException).code ?? String(error)})`;
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
