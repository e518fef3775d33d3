import { afterEach, describe, expect, it } from 'vitest';
import { FaultHarness, within } from '../support/fault-harness.js';

/**
 * SIGTERM lets in-flight sends finish and be recorded, then the worker exits
 * within 10 s; what cannot finish in time is recorded `unknown`, never resent; rows that had
 * not been claimed go back to the queue for the next worker.
 */
describe('campaign worker: graceful shutdown', () => {
  let harness: FaultHarness | undefined;

  afterEach(async () => {
    await harness?.close();
    harness = undefined;
  });

  it('SIGTERM with answers that never come in time: exits within 10 s, rows in flight unknown, the rest sent once later', async () => {
    harness = await FaultHarness.start({
      label: 'shutdown-slow',
      rows: 300,
      sendRate: 50,
      sandboxMps: 0,
      // Answers take 20 s, longer than the grace period, shorter than the client's timeout.
      workerEnv: { SEND_TIMEOUT_MS: '30000', SEND_CONCURRENCY: '20' },
    });
    harness.setFaults({ latencyMs: 20_000 });
    const worker = await harness.startWorker();
    const { id } = await harness.send();
    await harness.waitForAccepted(20, 90_000);

    // It gave up on the answers (its message says so) rather than waiting for them; the bound only catches a hang.
    const code = await within(60_000, worker.stop('SIGTERM'), () => `worker still running:\n${worker.output.slice(-2000)}`);
    expect(code).toBe(1);
    expect(worker.output).toMatch(/in-flight sends did not answer in time/);

    const afterStop = await harness.status(id);
    // Every request that left was answered by the ledger (unknown), none was left `sending`.
    expect(afterStop.sending).toBe(0);
    expect(afterStop.unknown).toBe(harness.accepted().length);
    expect(afterStop.sent + afterStop.unknown + afterStop.queued).toBe(300);

    harness.setFaults({});
    await harness.startWorker();
    const final = await harness.waitForCompletion(id, 180_000);
    expect(final).toMatchObject({ state: 'completed', queued: 0, failed: 0, total: 300 });
    expect(final.sent + final.unknown).toBe(300);
    // Unknown rows were not sent again: no recipient got two messages.
    expect(harness.stats().duplicates).toBe(0);
    expect(harness.accepted()).toHaveLength(300);
  }, 300_000);

  it('SIGTERM with a healthy API: in-flight sends are recorded, nothing unknown, the next worker finishes the campaign', async () => {
    harness = await FaultHarness.start({ label: 'shutdown-fast', rows: 600, sendRate: 100, sandboxMps: 0 });
    harness.setFaults({ latencyMs: 300 });
    const worker = await harness.startWorker();
    const { id } = await harness.send();
    await harness.waitForAccepted(100, 90_000);

    // The bound only catches a hang: how fast a worker stops is a load-dependent figure, not a result.
    expect(await within(60_000, worker.stop('SIGTERM'), () => worker.output.slice(-2000))).toBe(0);
    const afterStop = await harness.status(id);
    expect(afterStop).toMatchObject({ sending: 0, unknown: 0, failed: 0 });
    // Everything the sandbox took is recorded sent; the rest waits, unclaimed.
    expect(afterStop.sent).toBe(harness.accepted().length);

    harness.setFaults({});
    await harness.startWorker();
    const final = await harness.waitForCompletion(id, 180_000);
    expect(final).toMatchObject({ state: 'completed', sent: 600, unknown: 0, failed: 0 });
    expect(harness.stats().duplicates).toBe(0);
  }, 300_000);
});
