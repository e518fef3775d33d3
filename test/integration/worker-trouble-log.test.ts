import { afterEach, describe, expect, it } from 'vitest';
import { FaultHarness, waIdOfRow, within } from '../support/fault-harness.js';
import { PHONE_NUMBER_ID } from '../support/pipeline.js';

/**
 * What `campaign worker` tells an operator at the default LOG_LEVEL when sends go wrong,
 * read from its own stderr against the real sandbox: a throttle line per number (not per
 * refused send), per campaign a summary of failed and retried rows by code, and the halt;
 * never a line per row. LOG_LEVEL is left unset (an empty value is "not set"), so the worker
 * runs at the level an operator gets.
 */

interface LogLine {
  level: number;
  msg: string;
  campaignId?: string;
  phoneNumberId?: string;
  code?: string;
  pauseMs?: number;
  row?: unknown;
  failed?: Record<string, number>;
  retried?: Record<string, number>;
  throttled?: Record<string, number>;
}

function logLines(output: string): LogLine[] {
  return output
    .split('\n')
    .filter((line) => line.startsWith('{'))
    .map((line) => JSON.parse(line) as LogLine);
}

/** The counts of one kind over every summary of the campaign, by code. */
function summed(lines: readonly LogLine[], kind: 'failed' | 'retried' | 'throttled'): Record<string, number> {
  const total: Record<string, number> = {};
  for (const line of lines) for (const [code, n] of Object.entries(line[kind] ?? {})) total[code] = (total[code] ?? 0) + n;
  return total;
}

const DEFAULT_LEVEL = { LOG_LEVEL: '' };
const WARN = 40;

describe('campaign worker: trouble at the default log level', () => {
  let rig: FaultHarness | undefined;

  afterEach(async () => {
    await rig?.close();
    rig = undefined;
  });

  it(
    'a number throttled by the sandbox, failed and retried rows: throttle lines naming code, number ' +
      'and pause, and a summary of failures by code; no line per row',
    async () => {
      // SEND_RATE 20/s against a sandbox that takes 5/s: it answers 130429 again and again.
      rig = await FaultHarness.start({
        label: 'trouble-log',
        rows: 40,
        sendRate: 20,
        sandboxMps: 5,
        workerEnv: { ...DEFAULT_LEVEL, SEND_BACKOFF_MS: '200' },
      });
      const failing = [5, 10, 15];
      const retrying = [7, 14];
      rig.setFaults({
        recipientErrors: [
          ...failing.map((row) => ({ waId: waIdOfRow(row), code: 131009, times: 1 })),
          ...retrying.map((row) => ({ waId: waIdOfRow(row), code: 131000, times: 1 })),
        ],
      });
      const worker = await rig.startWorker();
      const startedAt = Date.now();
      const { id } = await rig.send();
      const status = await rig.waitForCompletion(id, 120_000);
      const minutes = Math.floor((Date.now() - startedAt) / 60_000);
      const stats = rig.stats();
      const lines = logLines(worker.output);
      const context = JSON.stringify({ status, stats, lines: lines.slice(-30) });

      expect(status, context).toMatchObject({ state: 'completed', sent: 37, failed: 3 });
      const refusals = stats.rejectedByCode['130429'] ?? 0;
      expect(refusals, context).toBeGreaterThan(0);

      // Throttling: code, number and pause; at most one line per number and code a minute.
      const throttles = lines.filter((l) => l.msg.includes('throttled by Meta'));
      expect(throttles.length, context).toBeGreaterThanOrEqual(1);
      expect(throttles.length, context).toBeLessThanOrEqual(1 + minutes);
      expect(throttles[0], context).toMatchObject({ level: WARN, code: '130429', phoneNumberId: PHONE_NUMBER_ID, pauseMs: 1000 });
      expect(throttles[0]?.msg).toContain(`phone number ${PHONE_NUMBER_ID} throttled by Meta (130429): every send from it paused 1 s`);

      // The campaign's summaries count every failed and retried row and every refusal, by code,
      // the last one logged before the line that says the campaign completed.
      const summaries = lines.filter((l) => l.campaignId === id && l.msg.includes('send problems'));
      expect(summaries.length, context).toBeGreaterThanOrEqual(1);
      // The first problem at once, the rest at most once a minute, the remainder at completion.
      expect(summaries.length, context).toBeLessThanOrEqual(2 + minutes);
      expect(summed(summaries, 'failed'), context).toEqual({ '131009': 3 });
      expect(summed(summaries, 'retried'), context).toEqual({ '131000': 2 });
      expect(summed(summaries, 'throttled'), context).toEqual({ '130429': refusals });
      expect(
        summaries.some((l) => /\d+ rows? failed \(131009 ×\d+\)/.test(l.msg)),
        context,
      ).toBe(true);
      const completedAt = lines.findIndex((l) => l.campaignId === id && l.msg === 'campaign completed');
      expect(lines.lastIndexOf(summaries.at(-1) as LogLine), context).toBeLessThan(completedAt);

      // No line per row: nothing logged names a row, and the lines are few for 40 rows and
      // 5 + `refusals` refused sends.
      expect(
        lines.filter((l) => l.row !== undefined),
        context,
      ).toEqual([]);
      expect(throttles.length + summaries.length, context).toBeLessThan(5 + refusals);
    },
    180_000,
  );

  it('a halting code is logged once; counts not yet logged when the worker gets SIGTERM are logged as it stops', async () => {
    rig = await FaultHarness.start({ label: 'trouble-stop', rows: 20, sendRate: 20, sandboxMps: 0, workerEnv: DEFAULT_LEVEL });
    // Two failures: the first is logged at once, the second waits for its minute. Then an
    // expired token (190) pauses the campaign, so it never completes.
    rig.setFaults({
      recipientErrors: [
        { waId: waIdOfRow(1), code: 131009, times: 1 },
        { waId: waIdOfRow(2), code: 131009, times: 1 },
        { waId: waIdOfRow(15), code: 190, times: 1 },
      ],
    });
    const worker = await rig.startWorker();
    const { id } = await rig.send();
    await within(60_000, worker.waitFor(/campaign paused: 190 /), () => `no halt logged:\n${worker.output.slice(-3000)}`);
    const status = await rig.status(id);
    const beforeStop = logLines(worker.output).filter((l) => l.campaignId === id && l.msg.includes('send problems'));

    expect(await within(15_000, worker.stop('SIGTERM'), () => `worker still running:\n${worker.output.slice(-2000)}`)).toBe(0);
    const lines = logLines(worker.output);
    const context = JSON.stringify({ status, lines: lines.slice(-20) });
    expect(status, context).toMatchObject({ state: 'paused', failed: 2 });

    const halts = lines.filter((l) => l.msg.startsWith('campaign paused: 190'));
    expect(halts, context).toEqual([expect.objectContaining({ level: WARN, campaignId: id, code: '190' })]);

    // One failure was logged at once; the other only as the worker stopped, before "worker stopped".
    expect(summed(beforeStop, 'failed'), context).toEqual({ '131009': 1 });
    const summaries = lines.filter((l) => l.campaignId === id && l.msg.includes('send problems'));
    expect(summed(summaries, 'failed'), context).toEqual({ '131009': 2 });
    const closingAt = lines.findIndex((l) => l.msg.startsWith('closing:'));
    const stoppedAt = lines.findIndex((l) => l.msg === 'worker stopped');
    const lastSummaryAt = lines.lastIndexOf(summaries.at(-1) as LogLine);
    expect(lastSummaryAt, context).toBeGreaterThan(closingAt);
    expect(lastSummaryAt, context).toBeLessThan(stoppedAt);
  }, 180_000);
});
