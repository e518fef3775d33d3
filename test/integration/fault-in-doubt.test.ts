import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultHarness } from '../support/fault-harness.js';

/**
 * The in-doubt rule with webhooks flowing: two `campaign worker` processes, the
 * webhook service, and a sandbox that posts status webhooks. Early on a share of requests
 * is never answered (the sandbox holds them: they never reached "Meta"), and each worker is
 * SIGKILLed once mid-campaign and restarted. Every row must end `sent`: a status settles
 * each in-doubt row that did reach the sandbox; the others are sent again once, because
 * statuses came for later sends. Nobody gets a message twice, and no row is `unknown`.
 */
const ROWS = 4000;
const RATE = 400;
/**
 * Confirm window of the workers and the service: short, so the test does not wait 10 minutes, yet
 * longer than a sent row's status can lag behind later rows' statuses on a starved 2-core host. A
 * row whose status has not come within the window is resent by the in-doubt rule, and this test
 * counts that as a recipient messaged twice.
 */
const CONFIRM_SECONDS = 10;

describe('fault: in-doubt rows settle themselves (webhooks flowing)', () => {
  let rig: FaultHarness;

  beforeAll(async () => {
    rig = await FaultHarness.start({
      label: 'fault-in-doubt',
      rows: ROWS,
      sendRate: RATE,
      sandboxMps: 0,
      webhooks: true,
      workerEnv: { CONFIRM_WINDOW_SECONDS: String(CONFIRM_SECONDS), SEND_TIMEOUT_MS: '1000', SEND_CONCURRENCY: '40' },
    });
  });

  afterAll(async () => {
    await rig.close();
  });

  it(`timeouts and two SIGKILLs in ${ROWS} rows: 0 unknown, 0 duplicates, every row sent`, async () => {
    const first = await rig.startWorker();
    let second = await rig.startWorker();
    // Held requests: the client times out, the sandbox never accepts them.
    rig.setFaults({ timeoutRate: 0.02 });
    const summary = await rig.send();
    expect(summary).toMatchObject({ rows: ROWS, queued: ROWS });

    const startedAt = Date.now();
    await rig.waitForAccepted(800, 90_000);
    rig.setFaults({});
    const kills = [Date.now() - startedAt];
    expect(await first.stop('SIGKILL')).toBeNull();
    await rig.startWorker();
    // Both kills land well before the last send, so later sends (and their statuses) follow each.
    await rig.waitForAccepted(1800, 90_000);
    kills.push(Date.now() - startedAt);
    expect(await second.stop('SIGKILL')).toBeNull();
    second = await rig.startWorker();
    expect(rig.accepted().length).toBeLessThan(ROWS);

    const status = await rig.waitForCompletion(summary.id, 240_000);
    const report = await rig.report(summary.id);
    const stats = rig.stats();
    const context = JSON.stringify({
      status,
      accepted: rig.accepted().length,
      duplicates: stats.duplicates,
      notSent: report.filter((r) => r.status !== 'sent').slice(0, 10),
      // Each recipient messaged twice: its row, and when each copy arrived (ms after the send), beside the kills.
      kills,
      twice: [...rig.acceptedByWaId()]
        .filter(([, copies]) => copies.length > 1)
        .slice(0, 10)
        .map(([waId, copies]) => ({
          row: report.find((r) => r.phone.replace(/\D/g, '') === waId),
          arrivedMs: copies.map((copy) => copy.receivedAt - startedAt),
        })),
    });
    expect(status.state, context).toBe('completed');
    expect(status.unknown, context).toBe(0);
    expect(status.sent, context).toBe(ROWS);
    expect(stats.duplicates, context).toBe(0);
    expect(rig.duplicatesSeen(), context).toBe(0);
    expect(rig.accepted()).toHaveLength(ROWS);
    // The resend path ran: rows whose first request went unanswered were sent by a later attempt.
    expect(report.filter((r) => r.attempts >= 2).length, context).toBeGreaterThan(0);
    expect(rig.crossCheck(report), context).toEqual([]);
  }, 300_000);
});
