import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { FaultHarness } from '../support/fault-harness.js';

/**
 * Fault injection: the worker is SIGKILLed three times during a 5,000-row campaign
 * and restarted each time. Every row must end with an answer (sent, failed or unknown), and
 * a recipient may have got a message twice only where the ledger admits it does not know
 * (`unknown`): duplicates ≤ unknown.
 */
const ROWS = 5000;
const RATE = 400;
const KILLS = 3;
/** A kill comes after this many more accepted sends since the (re)start. */
const ACCEPTED_BETWEEN_KILLS = 1000;

describe('fault: worker SIGKILLed mid-campaign', () => {
  let rig: FaultHarness;

  beforeAll(async () => {
    rig = await FaultHarness.start({ label: 'fault-kill', rows: ROWS, sendRate: RATE, sandboxMps: 0 });
  });

  afterAll(async () => {
    await rig.close();
  });

  it(`three SIGKILLs in ${ROWS} rows: every row answered, duplicates ≤ unknown`, async () => {
    let worker = await rig.startWorker();
    const summary = await rig.send();
    expect(summary).toMatchObject({ rows: ROWS, queued: ROWS, rejected: 0, skipped: 0 });

    const killedPids: number[] = [];
    for (let kill = 1; kill <= KILLS; kill++) {
      await rig.waitForAccepted(rig.accepted().length + ACCEPTED_BETWEEN_KILLS, 90_000);
      killedPids.push(worker.child.pid ?? -1);
      const signalled = await worker.stop('SIGKILL');
      expect(signalled).toBeNull(); // it died of the signal, it did not exit by itself
      expect(worker.child.signalCode).toBe('SIGKILL');
      worker = await rig.startWorker();
    }
    // Every kill landed mid-campaign: rows were still left to send after the last one.
    expect(rig.accepted().length).toBeLessThan(ROWS);

    const status = await rig.waitForCompletion(summary.id, 180_000);
    const stats = rig.stats();
    const duplicates = stats.duplicates;
    const report = await rig.report(summary.id);
    const notAnswered = report.filter((r) => !['sent', 'failed', 'unknown'].includes(r.status));
    const context = JSON.stringify({
      status,
      accepted: rig.accepted().length,
      duplicatesSeen: rig.duplicatesSeen(),
      statsDuplicates: stats.duplicates,
      notAnswered: notAnswered.slice(0, 10),
      unknownRows: report.filter((r) => r.status === 'unknown').slice(0, 10),
      failedRows: report.filter((r) => r.status === 'failed').slice(0, 10),
    });
    rig.note('outcome', { status, accepted: rig.accepted().length, duplicates, rejectedByCode: stats.rejectedByCode });

    expect(status.state, context).toBe('completed');
    expect(status.total, context).toBe(ROWS);
    expect(status.queued, context).toBe(0);
    expect(status.sent + status.failed + status.unknown, context).toBe(ROWS);
    expect(notAnswered, context).toEqual([]);
    expect(report).toHaveLength(ROWS);
    expect(report.filter((r) => r.status === 'unknown')).toHaveLength(status.unknown);

    // The sandbox's own count agrees with what it logged, and nobody got a message twice
    // unless the ledger says it cannot know.
    expect(stats.duplicates, context).toBe(rig.duplicatesSeen());
    expect(duplicates, context).toBeLessThanOrEqual(status.unknown);
    // Recipients who got a message twice are among the unknown rows.
    const unknownPhones = new Set(report.filter((r) => r.status === 'unknown').map((r) => r.phone.replace(/\D/g, '')));
    const twice = [...rig.acceptedByWaId()].filter(([, list]) => list.length > 1).map(([waId]) => waId);
    expect(
      twice.filter((waId) => !unknownPhones.has(waId)),
      context,
    ).toEqual([]);

    // What the report says matches what the API saw.
    expect(rig.crossCheck(report), context).toEqual([]);
    expect(new Set(killedPids).size).toBe(KILLS);
  }, 300_000);
});
