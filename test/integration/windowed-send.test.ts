import { writeFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { parseSendWindow } from '../../src/campaigns/feed/send-window.js';
import { windowStatus } from '../../src/campaigns/report/window-status.js';
import { phoneNumber } from '../support/csv-files.js';
import { pipelinePerTest } from '../support/pipeline.js';
import type { Sandbox } from '../../src/sandbox/index.js';
import { TestClock } from '../support/test-clock.js';
import { waitFor } from '../support/waiting.js';
import { CLI_FIELD_NAMES } from '../../src/campaigns/spec/field-names.js';

const MINUTE = 60_000;
const hhmm = (ms: number) => new Date(ms).toISOString().slice(11, 16);

/**
 * Recipient-local send windows through the whole pipeline (ledger, feeder, BullMQ worker,
 * sandbox). The window opens at a whole minute about ten minutes ahead in UTC (windows are
 * whole minutes), so three lanes behave three ways at once: Berlin's local time is already
 * inside it, UTC's window opens when the test moves the ledger's clock there, and UTC+6's is
 * hours away.
 */
describe('send windows through the pipeline', () => {
  const rig = pipelinePerTest();

  it('rows are fed only inside their local window: open lanes now, the next at its opening, the rest wait without failing', async () => {
    const clock = TestClock.running();
    const pipeline = await rig.start({ label: 'windows', clock });
    const opensAt = Math.ceil((clock.now() + 10 * MINUTE) / MINUTE) * MINUTE;
    const window = parseSendWindow(`${hhmm(opensAt)}-${hhmm(opensAt + 2 * 60 * MINUTE)}`, undefined, CLI_FIELD_NAMES);
    const lines = ['phone,first_name,order_id,tz'];
    // Rows 1-5: no zone given, German numbers → Europe/Berlin (UTC+1/+2: inside the window now).
    for (let i = 1; i <= 5; i++) lines.push(`${phoneNumber(i)},Berlin${i},A-${i},`);
    for (let i = 6; i <= 10; i++) lines.push(`${phoneNumber(i)},Utc${i},A-${i},Etc/UTC`);
    for (let i = 11; i <= 15; i++) lines.push(`${phoneNumber(i)},East${i},A-${i},Etc/GMT-6`);
    lines.push(`${phoneNumber(16)},Bad,A-16,Mars/Base`);
    const file = rig.csvPath();
    await writeFile(file, lines.join('\n') + '\n');
    const definition = pipeline.definition('c-win', {});
    const summary = await pipeline.produce(file, { ...definition, window, source: { ...definition.source, timezoneColumn: 'tz' } });
    expect(summary).toMatchObject({ queued: 15, rejected: 1, byReason: { TIMEZONE_INVALID: 1 } });
    expect(summary.lanes).toEqual([
      { zones: ['Europe/Berlin'], rows: 5 },
      { zones: ['Etc/UTC'], rows: 5 },
      { zones: ['Etc/GMT-6'], rows: 5 },
    ]);
    const before = windowStatus(window, await pipeline.ledger.laneBacklogs('c-win'), clock.now());
    expect(before.waiting).toBe(10);
    expect(before.nextWindowAt).toBe(opensAt);

    const byName = (prefix: string) => pipeline.sandbox.accepted().filter((m) => JSON.stringify(m.body).includes(prefix));
    const fiveAccepted = acceptedCount(pipeline.sandbox, 5, Date.now() + 30_000);
    pipeline.startWorker();
    // The Berlin lane is open: its rows go out; the UTC lane waits for its window.
    await fiveAccepted;
    expect(byName('Berlin')).toHaveLength(5);
    await settled(async () => (await pipeline.ledger.status('c-win'))?.counts.sent === 5);
    expect(byName('Utc')).toHaveLength(0);

    // The clock comes to the UTC window's opening: its lane opens.
    const tenAccepted = acceptedCount(pipeline.sandbox, 10, Date.now() + 30_000);
    const movedAt = Date.now();
    clock.set(opensAt);
    await tenAccepted;
    expect(byName('Utc')).toHaveLength(5);
    expect(Math.min(...byName('Utc').map((m) => m.receivedAt))).toBeGreaterThanOrEqual(movedAt);
    expect(byName('East')).toHaveLength(0);

    // UTC+6's window is hours away: its rows wait (queued, not failed), and the campaign is not done.
    await settled(async () => (await pipeline.ledger.status('c-win'))?.counts.sent === 10);
    const status = await pipeline.ledger.status('c-win');
    expect(status?.state).toBe('running');
    expect(status?.counts).toMatchObject({ sent: 10, queued: 5, failed: 0, rejected: 1 });
    const waiting = windowStatus(window, await pipeline.ledger.laneBacklogs('c-win'), clock.now());
    expect(waiting.waiting).toBe(5);
    expect(waiting.nextWindowAt).toBe(opensAt - 6 * 60 * MINUTE + 24 * 60 * MINUTE);

    // Cancel ends the waiting lane as a block; the campaign completes with every row answered.
    const done = pipeline.completed('c-win');
    expect(await pipeline.ledger.cancel('c-win')).toEqual({ outcome: 'cancelled', cancelled: 5 });
    const after = await pipeline.ledger.status('c-win');
    expect(after?.counts).toMatchObject({ sent: 10, cancelled: 5, queued: 0 });
    expect(after?.state).toBe('cancelled');
    void done;
    const report = await pipeline.report('c-win');
    expect(report.filter((r) => r.status === 'cancelled').map((r) => r.row)).toEqual([11, 12, 13, 14, 15]);
    expect(pipeline.sandbox.accepted()).toHaveLength(10);
  });
});

/** Resolves when the sandbox has accepted `count` messages (its accept event), rejects after `deadline` (ms since the epoch). */
function acceptedCount(sandbox: Sandbox, count: number, deadline: number): Promise<void> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      stop();
      reject(new Error(`the sandbox accepted ${sandbox.accepted().length} of ${count} messages by the deadline`));
    }, deadline - Date.now());
    const stop = sandbox.onAccepted(() => {
      if (sandbox.accepted().length < count) return;
      clearTimeout(timer);
      stop();
      resolve();
    });
  });
}

/** The worker records an answer just after the sandbox sends it: allow it that moment (at most 5 s). */
async function settled(done: () => Promise<boolean>): Promise<void> {
  await waitFor(done, { what: 'the ledger recorded the accepted sends', timeoutMs: 5000, intervalMs: 20 });
}
