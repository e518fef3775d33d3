import { describe, expect, it } from 'vitest';
import type { InDoubtDecisions, SendLedger } from '../../src/campaigns/ledger.js';
import { silentLogger } from '../../src/logging/logger.js';
import { InDoubtSweep } from '../../src/campaigns/settle/in-doubt-sweep.js';

/**
 * The ledger's confirmInDoubt over `due` rows of one campaign: each call decides at most
 * `limit` of them (unknown: no evidence either way), and the call that decides the last one
 * completes the campaign. (What the script decides for each row: the ledger's specification.)
 */
function stubLedger(): Pick<SendLedger, 'confirmInDoubt' | 'retryCapped'> & { due: number; calls: number[] } {
  return {
    due: 0,
    calls: [],
    // No campaign of these asks for --retry-capped-after.
    retryCapped: () => Promise.resolve({ requeued: 0, left: 0 }),
    confirmInDoubt(_phoneNumberId: string, limit: number): Promise<InDoubtDecisions> {
      this.calls.push(limit);
      const decided = Math.min(limit, this.due);
      this.due -= decided;
      return Promise.resolve({
        resent: 0,
        unknown: decided,
        ended: 0,
        heldExpired: 0,
        completedCampaigns: decided > 0 && this.due === 0 ? ['c'] : [],
      });
    },
  };
}

/** The worker's side of the in-doubt rule: every due row decided, page after page, completion reported once. */
describe('InDoubtSweep', () => {
  it('decides every due row (more than one page), and reports the campaign its last decision completed', async () => {
    const ledger = stubLedger();
    const completed: string[] = [];
    const sweep = new InDoubtSweep({
      ledger,
      phoneNumberId: '106540352242922',
      logger: silentLogger(),
      onCampaignCompleted: (id) => completed.push(id),
    });

    // Nothing due yet: one call, nothing decided.
    expect(await sweep.sweepOnce()).toBe(0);
    expect(ledger.calls).toHaveLength(1);
    ledger.due = 1234;
    expect(await sweep.sweepOnce()).toBe(1234);
    // Pages until one comes back short: 500, 500, 234.
    expect(ledger.calls.slice(1)).toEqual([500, 500, 500]);
    expect(completed).toEqual(['c']);
    expect(await sweep.sweepOnce()).toBe(0);
    expect(completed).toEqual(['c']);
  });

  it('a page exactly full asks again, and stops at the empty one after it', async () => {
    const ledger = stubLedger();
    ledger.due = 1000;
    const sweep = new InDoubtSweep({ ledger, phoneNumberId: '106540352242922', logger: silentLogger() });
    expect(await sweep.sweepOnce()).toBe(1000);
    expect(ledger.calls).toEqual([500, 500, 500]);
  });
});
