import { setTimeout as sleep } from 'node:timers/promises';
import { startChild, stopChild, type Child } from '../support/children.js';
import { CAMPAIGN_BIN, ROOT, productEnv } from '../support/product.js';
import type { SandboxChild } from '../support/sandbox.js';
import { runCli, timeControl } from './cli-calls.js';
import { DRAIN_CONCURRENCY, DRAIN_SEND_RATE, WATCH_AFTER_MS } from './targets.js';
import type { ControlCall, DrainingObservations } from './types.js';

export interface DrainingControls {
  pauseDraining: ControlCall;
  resumeDraining: ControlCall;
  cancelDraining: ControlCall;
  draining: DrainingObservations;
}

/**
 * Pause, resume and cancel of campaign `id` while a `campaign worker` drains it into the
 * sandbox at the product's default rate; the worker is stopped before this returns.
 */
export async function measureDrainingControls(sandbox: SandboxChild, empty: string, prefix: string, id: string): Promise<DrainingControls> {
  const control = (what: string, args: string[], expect: RegExp) => timeControl(empty, what, args, prefix, expect);
  /** Messages the sandbox accepted with receivedAt after `since` (ms since the epoch). */
  const acceptedAfter = async (since: number) => (await sandbox.acceptedTimes()).filter((t) => t > since);
  await sandbox.reset();
  const env = productEnv(prefix, {
    WHATSAPP_API_URL: sandbox.url,
    SEND_RATE: String(DRAIN_SEND_RATE),
    SEND_CONCURRENCY: String(DRAIN_CONCURRENCY),
  });
  let worker: Child | undefined = startChild('campaign worker', process.execPath, [CAMPAIGN_BIN, 'worker'], env, ROOT);
  try {
    await waitForAccepted(sandbox, worker, DRAIN_SEND_RATE, 120_000);

    const acceptedBeforePause = (await sandbox.stats()).accepted;
    const pauseDraining = await control('pause (worker draining)', ['pause', id], /paused: no new send starts/);
    await sleep(WATCH_AFTER_MS);
    const afterPause = await acceptedAfter(pauseDraining.returnedAt);

    const resumeDraining = await control('resume (worker draining)', ['resume', id], /resumed/);
    const firstAfterResume = await waitForAcceptedAfter(sandbox, worker, resumeDraining.returnedAt, 60_000);
    // Let it send for a moment before the cancel, so rows are in flight and fed when it lands.
    await sleep(2000);

    const cancelDraining = await control('cancel (worker draining)', ['cancel', id], /cancelled: \d+ rows/);
    await sleep(WATCH_AFTER_MS);
    const afterCancel = await acceptedAfter(cancelDraining.returnedAt);
    let status: Record<string, unknown> = {};
    const answerDeadline = Date.now() + 120_000;
    do {
      status = JSON.parse((await runCli(['status', id, '--json'], prefix)).output) as Record<string, unknown>;
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
    return { pauseDraining, resumeDraining, cancelDraining, draining };
  } finally {
    if (worker !== undefined) await stopChild(worker);
  }
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
    `${worker.name}: fewer than ${count} messages reached the ` +
      `sandbox${exited ? ' (it exited)' : ` within ${timeoutMs} ms`}\n${worker.tail()}`,
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
