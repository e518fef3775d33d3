import { describe, expect, it } from 'vitest';
import { MemoryLedger } from '../../src/campaigns/memory-ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import { InDoubtSweep } from '../../src/queue/in-doubt-sweep.js';
import { fakeClock } from '../support/ledger-contract.js';
import { LEDGER_TEST_NUMBER, feedAll, ingestQueuedCampaign } from '../support/ledger-fixtures.js';

/** The worker's side of the in-doubt rule: every due row decided, page after page, completion reported once. */
describe('InDoubtSweep', () => {
  it('decides every due row (more than one page), and reports the campaign its last decision completed', async () => {
    const clock = fakeClock();
    const ledger = new MemoryLedger({ now: clock.now, confirmWindowMs: 60_000 });
    const rows = 1234;
    await ingestQueuedCampaign(ledger, 'c', rows);
    const { jobs } = await feedAll(ledger, LEDGER_TEST_NUMBER, rows);
    for (const job of jobs) {
      await ledger.claim(job, LEDGER_TEST_NUMBER);
      await ledger.settle(job, { status: 'unknown', errorCode: 'TIMEOUT', errorDetail: 'no answer' }, LEDGER_TEST_NUMBER);
    }
    const completed: string[] = [];
    const sweep = new InDoubtSweep({ ledger, phoneNumberId: LEDGER_TEST_NUMBER, logger: silentLogger(), onCampaignCompleted: (id) => completed.push(id) });

    expect(await sweep.sweepOnce()).toBe(0);
    expect((await ledger.status('c'))?.counts).toMatchObject({ confirming: rows });
    await clock.advance(60_001);
    expect(await sweep.sweepOnce()).toBe(rows);
    // No status came for anything: no evidence, so every row is unknown, none resent.
    expect((await ledger.status('c'))?.counts).toMatchObject({ confirming: 0, unknown: rows, queued: 0 });
    expect(completed).toEqual(['c']);
    expect(await sweep.sweepOnce()).toBe(0);
  });
});
