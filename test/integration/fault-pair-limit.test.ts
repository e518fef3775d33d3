import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultHarness, waIdOfRow } from '../support/fault-harness.js';

/**
 * Fault injection: Meta's pair rate limit (131056) for one recipient delays that
 * recipient only. Its first two sends are refused; the worker puts that one job back for a
 * growing delay, never throttles the number for it, and the recipient gets its message
 * exactly once, after the delays.
 *
 * Checked on the mechanism, not on wall-clock pace: the worker logs every failed send
 * (LOG_LEVEL=debug: row, code, action), so the test sees which action each refusal drew.
 * How evenly the other rows reached the sandbox meanwhile depends on the machine's load;
 * that is `npm run bench`'s figure. A loaded machine may also make the strict sandbox answer
 * 130429 now and then (arrivals bunched by a starved event loop): such a send throttles the
 * number (its purpose) and is sent again, so it is allowed for, and accounted for, row by row.
 */
const ROWS = 400;
const RATE = 40;
const DELAYED_ROW = 3;
/** The pair-limit delays of src/campaigns/send-processor.ts (PAIR_DELAY_MS, doubled each time). */
const PAIR_DELAYS_MS = [6000, 12_000];
/** BullMQ promotes a delayed job on the worker's millisecond clock: a little slack for rounding. */
const CLOCK_SLACK_MS = 100;

/** One `send failed` line of the worker's debug log. */
interface SendFailure {
  time: number;
  campaignId: string;
  row: number;
  code: string;
  action: string;
}

function sendFailures(output: string, campaignId: string): SendFailure[] {
  const failures: SendFailure[] = [];
  for (const line of output.split('\n')) {
    if (!line.includes('"msg":"send failed"')) continue;
    const entry = JSON.parse(line) as SendFailure;
    if (entry.campaignId === campaignId) failures.push(entry);
  }
  return failures.sort((a, b) => a.time - b.time);
}

describe('fault: pair rate limit (131056) for one recipient', () => {
  let rig: FaultHarness;
  const waId = waIdOfRow(DELAYED_ROW);

  beforeAll(async () => {
    rig = await FaultHarness.start({
      label: 'fault-pair',
      rows: ROWS,
      sendRate: RATE,
      sandboxMps: RATE,
      workerEnv: { LOG_LEVEL: 'debug' },
    });
    rig.setFaults({ recipientErrors: [{ waId, code: 131056, times: 2 }] });
  });

  afterAll(async () => {
    await rig.close();
  });

  it('the other rows keep flowing; the recipient is sent once, after two refusals', async () => {
    const worker = await rig.startWorker();
    const summary = await rig.send();
    expect(summary).toMatchObject({ rows: ROWS, queued: ROWS });

    const status = await rig.waitForCompletion(summary.id, 150_000);
    const stats = rig.stats();
    const accepted = rig.accepted();
    const mine = accepted.filter((m) => m.waId === waId);
    const others = accepted.filter((m) => m.waId !== waId);
    const report = await rig.report(summary.id);
    const row = report.find((r) => r.row === DELAYED_ROW);
    const failures = sendFailures(worker.output, summary.id);
    const myFailures = failures.filter((f) => f.row === DELAYED_ROW);
    const otherFailures = failures.filter((f) => f.row !== DELAYED_ROW);
    const context = JSON.stringify({ status, stats, row, myFailures, otherFailures: otherFailures.slice(0, 10) });
    rig.note('outcome', { status, stats, row, othersSpanMs: (others.at(-1)?.receivedAt ?? 0) - (others[0]?.receivedAt ?? 0) });

    expect(status, context).toMatchObject({ state: 'completed', total: ROWS, queued: 0, sent: ROWS, failed: 0, unknown: 0 });

    // Refused exactly twice, then accepted once.
    expect(stats.rejectedByCode['131056'], context).toBe(2);
    expect(mine, context).toHaveLength(1);
    expect(others, context).toHaveLength(ROWS - 1);

    // Each refusal delayed that recipient's job: the worker saw both, and took the
    // recipient-only action for them, never the number-wide throttle.
    const pairRefusals = myFailures.filter((f) => f.code === '131056');
    expect(
      pairRefusals.map((f) => f.action),
      context,
    ).toEqual(['delay-recipient', 'delay-recipient']);
    expect(
      failures.filter((f) => f.code === '131056'),
      context,
    ).toHaveLength(2);
    // Nothing else was delayed, retried or failed: any other failure is the sandbox's own
    // throughput answer (130429), which throttles the number as it should.
    expect(
      failures.filter((f) => f.code !== '131056' && !(f.code === '130429' && f.action === 'throttle-number')),
      context,
    ).toEqual([]);
    // The worker saw every answer the sandbox gave: one log line per refused request.
    expect(failures, context).toHaveLength((stats.rejectedByCode['131056'] ?? 0) + (stats.rejectedByCode['130429'] ?? 0));

    // The delays were really taken (lower bounds on one machine's clock: load only lengthens them).
    const [first, second] = pairRefusals;
    expect((second?.time ?? 0) - (first?.time ?? 0), context).toBeGreaterThanOrEqual((PAIR_DELAYS_MS[0] ?? 0) - CLOCK_SLACK_MS);
    expect((mine[0]?.receivedAt ?? 0) - (second?.time ?? 0), context).toBeGreaterThanOrEqual((PAIR_DELAYS_MS[1] ?? 0) - CLOCK_SLACK_MS);

    // The ledger tells the story: sent with the wamid the API returned, after two refusals
    // (plus one claim per 130429 the row met, if the machine's load drew any).
    const throttlesOf = (n: number) => failures.filter((f) => f.row === n && f.code === '130429').length;
    expect(row, context).toMatchObject({ status: 'sent', messageId: mine[0]?.wamid, attempts: 3 + throttlesOf(DELAYED_ROW) });
    // Every other row was sent on its first claim, but for 130429s: no other row was delayed.
    const extraClaims = report.filter((r) => r.row !== DELAYED_ROW && r.attempts !== 1 + throttlesOf(r.row));
    expect(extraClaims, context).toEqual([]);

    expect(rig.duplicatesSeen()).toBe(0);
    expect(rig.crossCheck(report), context).toEqual([]);
  }, 180_000);
});
